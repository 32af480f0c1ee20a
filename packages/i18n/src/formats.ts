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
  /**
   * A price in minor units with decimals, as a decimal string (`"0.125"` cents): every digit kept,
   * at least the currency's own (`€0.00125`, `€15.00` for `"1500"`).
   */
  unitPrice: (minorDecimal: string, currency: string) => string;
  /** A quantity of a CLDR unit (`hour`, `kilogram`, …) as entered: `7.5 hours` (en), `7,5 Stunden` (de), `7,5 kg` (fr). */
  measure: (value: string, unit: MeasureUnit) => string;
}

/** The CLDR units a quantity is written with; time in words (`3 months`, never the `3 m.` French abbreviates to), the rest as symbols. */
export const MEASURE_UNITS = {
  second: 'long',
  minute: 'long',
  hour: 'long',
  day: 'long',
  week: 'long',
  month: 'long',
  year: 'long',
  gram: 'short',
  kilogram: 'short',
  millimeter: 'short',
  centimeter: 'short',
  meter: 'short',
  kilometer: 'short',
  milliliter: 'short',
  liter: 'short',
  hectare: 'short',
  megabyte: 'short',
  gigabyte: 'short',
  terabyte: 'short',
} as const satisfies Record<string, 'long' | 'short'>;
export type MeasureUnit = keyof typeof MEASURE_UNITS;

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

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;
/** Most decimals a unit price in minor units carries (EN 16931 prices: 6 beyond the minor unit). */
const UNIT_PRICE_EXTRA_DECIMALS = 6;

/**
 * A non-negative decimal string of minor units as the decimal string of major units, by moving
 * the point (`"0.125"` cents, EUR → `"0.00125"`): exact, whatever its length, with every decimal
 * of the currency and no trailing zeros beyond them (`"1999.500000"` → `"19.995"`).
 */
export const minorDecimalToDecimal = (minorDecimal: string, currency: string): string => {
  const match = DECIMAL.exec(minorDecimal);
  if (!match) throw new RangeError(`${minorDecimal} is not a decimal amount in minor units`);
  const exponent = minorUnitExponent(currency);
  const fraction = (match[2] ?? '').replace(/0+$/, '');
  const digits = `${match[1]!.replace(/^0+(?=\d)/, '')}${fraction}`.padStart(exponent + fraction.length + 1, '0');
  const point = digits.length - exponent - fraction.length;
  const after = digits.slice(point);
  return after === '' ? digits : `${digits.slice(0, point)}.${after}`;
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
  const unitPriceFormats = new Map<string, Intl.NumberFormat>();
  const unitPriceFormat = (currency: string) => {
    let format = unitPriceFormats.get(currency);
    if (!format) {
      const digits = minorUnitExponent(currency);
      format = new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits + UNIT_PRICE_EXTRA_DECIMALS });
      unitPriceFormats.set(currency, format);
    }
    return format;
  };
  const measureFormats = new Map<MeasureUnit, Intl.NumberFormat>();
  const measureFormat = (unit: MeasureUnit) => {
    let format = measureFormats.get(unit);
    if (!format) {
      format = new Intl.NumberFormat(locale, { style: 'unit', unit, unitDisplay: MEASURE_UNITS[unit], maximumFractionDigits: 20 });
      measureFormats.set(unit, format);
    }
    return format;
  };
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
    unitPrice: (minorDecimal, currency) => unitPriceFormat(currency).format(minorDecimalToDecimal(minorDecimal, currency) as Intl.StringNumericLiteral),
    measure: (value, unit) => measureFormat(unit).format(value as Intl.StringNumericLiteral),
  };
  cache.set(locale, formats);
  return formats;
};
