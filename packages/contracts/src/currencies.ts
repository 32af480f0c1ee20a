import { z } from 'zod';
import { documentCaseInsensitiveEnum } from './schema-documentation.ts';

// ISO 4217 active codes. Minor-unit exponent is 2 unless listed in the exceptions below.
const ACTIVE_CODES =
  'AED AFN ALL AMD ANG AOA ARS AUD AWG AZN BAM BBD BDT BGN BHD BIF BMD BND BOB BOV BRL BSD BTN BWP BYN BZD ' +
  'CAD CDF CHE CHF CHW CLF CLP CNY COP COU CRC CUP CVE CZK DJF DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL ' +
  'GHS GIP GMD GNF GTQ GYD HKD HNL HTG HUF IDR ILS INR IQD IRR ISK JMD JOD JPY KES KGS KHR KMF KPW KRW KWD ' +
  'KYD KZT LAK LBP LKR LRD LSL LYD MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR MWK MXN MXV MYR MZN NAD NGN NIO ' +
  'NOK NPR NZD OMR PAB PEN PGK PHP PKR PLN PYG QAR RON RSD RUB RWF SAR SBD SCR SDG SEK SGD SHP SLE SOS SRD ' +
  'SSP STN SVC SYP SZL THB TJS TMT TND TOP TRY TTD TWD TZS UAH UGX USD USN UYI UYU UYW UZS VED VES VND VUV ' +
  'WST XAF XCD XCG XOF XPF YER ZAR ZMW ZWG';

const EXPONENT_EXCEPTIONS: Record<string, number> = {
  BIF: 0, CLP: 0, DJF: 0, GNF: 0, ISK: 0, JPY: 0, KMF: 0, KRW: 0, PYG: 0, RWF: 0, UGX: 0, UYI: 0,
  VND: 0, VUV: 0, XAF: 0, XOF: 0, XPF: 0,
  BHD: 3, IQD: 3, JOD: 3, KWD: 3, LYD: 3, OMR: 3, TND: 3,
  CLF: 4, UYW: 4,
};

export const CURRENCY_CODE_LIST: readonly string[] = ACTIVE_CODES.split(' ');
const CURRENCY_CODES: ReadonlySet<string> = new Set(CURRENCY_CODE_LIST);

export const isCurrencyCode = (code: string): boolean => CURRENCY_CODES.has(code);

/** Digits after the decimal point in the currency's minor unit (ISO 4217): JPY 0, USD 2, KWD 3. */
export const minorUnitExponent = (code: string): number => EXPONENT_EXCEPTIONS[code] ?? 2;

/** A three-letter ISO 4217 code, accepted in any case and returned uppercase. */
export const CurrencyCode = z
  .string()
  .regex(/^[A-Za-z]{3}$/, 'must be a three-letter ISO 4217 currency code')
  .transform((code) => code.toUpperCase())
  .refine(isCurrencyCode, 'must be an active ISO 4217 currency code')
  .meta({
    id: 'CurrencyCode',
    description: 'An active ISO 4217 currency code. Listed uppercase; the server also accepts it in lower or mixed case and returns it uppercase.',
    example: 'USD',
    override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => documentCaseInsensitiveEnum(jsonSchema, CURRENCY_CODE_LIST),
  });
