import { minorUnitExponent } from '@invoicing/contracts';

/** Numbers, money and dates as a reader of one locale writes them (CLDR data bundled with Node's ICU). */
export interface LocaleFormats {
  locale: string;
  /** An amount in minor units with its currency: `1.866,86 €` (de), `€1,866.86` (en), `¥1,235`. */
  money: (minor: number, currency: string) => string;
  /** A calendar date (`2026-11-26`): `26.11.2026` (de), `Nov 26, 2026` (en), `26 nov. 2026` (fr). */
  date: (isoDate: string) => string;
  /** A decimal number as entered (a count, `7.5`, `"0.125"`), grouped and with the locale's separator. */
  decimal: (value: number | string) => string;
  /** A rate in percent as entered (19, 7.5): `19 %` (de), `7.5%` (en). */
  percent: (value: number | string) => string;
}

/**
 * An integer in minor units as an exact decimal string (`186686`, EUR → `"1866.86"`). Intl formats
 * decimal strings without passing them through binary floating point, so no amount is ever
 * rounded on its way to the page.
 */
export const minorToDecimal = (minor: number, currency: string): string => {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not an amount in minor units`);
  const exponent = minorUnitExponent(currency);
  const digits = Math.abs(minor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const sign = minor < 0 ? '-' : '';
  return exponent === 0 ? `${sign}${whole}` : `${sign}${whole}.${digits.slice(digits.length - exponent)}`;
};

const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})/;

const cache = new Map<string, LocaleFormats>();

/** The formats of a canonical locale (see `canonicalLocale` in the contracts), built once per locale. */
export const formatsFor = (locale: string): LocaleFormats => {
  let formats = cache.get(locale);
  if (formats) return formats;
  const moneyFormats = new Map<string, Intl.NumberFormat>();
  const moneyFormat = (currency: string) => {
    let format = moneyFormats.get(currency);
    if (!format) {
      const digits = minorUnitExponent(currency);
      format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits });
      moneyFormats.set(currency, format);
    }
    return format;
  };
  const dateFormat = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeZone: 'UTC' });
  const decimalFormat = new Intl.NumberFormat(locale, { maximumFractionDigits: 20 });
  const percentFormat = new Intl.NumberFormat(locale, { style: 'percent', maximumFractionDigits: 20 });
  formats = {
    locale,
    money: (minor, currency) => moneyFormat(currency).format(minorToDecimal(minor, currency) as Intl.StringNumericLiteral),
    date: (isoDate) => {
      const match = ISO_DATE.exec(isoDate);
      if (!match) throw new RangeError(`${isoDate} is not a date`);
      return dateFormat.format(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    },
    decimal: (value) => decimalFormat.format(String(value) as Intl.StringNumericLiteral),
    percent: (value) => percentFormat.format(`${value}e-2` as Intl.StringNumericLiteral),
  };
  cache.set(locale, formats);
  return formats;
};
