import { minorUnitExponent } from '@invoicing/contracts';

const LOCALE = 'en-US';
const MINUS = '\u2212';

const symbols = new Map<string, string>();

/**
 * The currency's symbol as an English-language invoice prints it: `$`, `€`, `¥`, `CA$`; a code
 * such as `KWD` where there is no unambiguous sign. From the ICU data bundled with Node, so it
 * does not depend on the machine.
 */
export const currencySymbol = (currency: string): string => {
  let symbol = symbols.get(currency);
  if (symbol === undefined) {
    const parts = new Intl.NumberFormat(LOCALE, { style: 'currency', currency, currencyDisplay: 'symbol' }).formatToParts(0);
    symbol = parts.find((part) => part.type === 'currency')?.value ?? currency;
    symbols.set(currency, symbol);
  }
  return symbol;
};

const groupThousands = (digits: string): string => digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');

/**
 * An amount in minor units as text, with the currency's ISO 4217 exponent (JPY 0, USD 2, KWD 3)
 * and symbol: `$1,234.56`, `¥1,235`, `KWD 1.250`, `−$5.00`. Pure string arithmetic on the
 * integer, so no amount is ever rounded through binary floating point.
 */
export const formatMoney = (minor: number, currency: string): string => {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not an amount in minor units`);
  const exponent = minorUnitExponent(currency);
  const digits = Math.abs(minor).toString().padStart(exponent + 1, '0');
  const whole = groupThousands(digits.slice(0, digits.length - exponent));
  const number = exponent === 0 ? whole : `${whole}.${digits.slice(digits.length - exponent)}`;
  const symbol = currencySymbol(currency);
  // A letter code reads as a word ("KWD 1.250"); a sign sits against the digits ("$1.00").
  const amount = /\p{L}$/u.test(symbol) ? `${symbol}\u00a0${number}` : `${symbol}${number}`;
  return minor < 0 ? `${MINUS}${amount}` : amount;
};

/** A percentage as entered, without float noise: 8.5 → `8.5%`, 19 → `19%`. */
export const formatPercent = (value: number): string => `${Number(value.toFixed(4))}%`;

/** A count with thousands separators: 1200 → `1,200`. */
export const formatQuantity = (value: number): string => groupThousands(String(value));

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** A calendar date (`2026-11-22`) as `22 Nov 2026`: day-month order reads the same everywhere. */
export const formatDate = (isoDate: string): string => {
  const [year, month, day] = isoDate.slice(0, 10).split('-').map(Number);
  const name = MONTHS[(month ?? 0) - 1];
  if (!year || !name || !day) throw new RangeError(`${isoDate} is not a date`);
  return `${day} ${name} ${year}`;
};
