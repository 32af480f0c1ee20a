import { minorUnitExponent } from '@invoicing/contracts';

/** Minor units as a decimal with the currency's ISO 4217 exponent: 123456 EUR → `1234.56`, 1235 JPY → `1235`, 1250 KWD → `1.250`. */
export const decimalOf = (minor: number, currency: string): string => {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`${minor} is not an amount in minor units`);
  const exponent = minorUnitExponent(currency);
  const digits = Math.abs(minor).toString().padStart(exponent + 1, '0');
  const whole = digits.slice(0, digits.length - exponent);
  const sign = minor < 0 ? '-' : '';
  return exponent === 0 ? `${sign}${whole}` : `${sign}${whole}.${digits.slice(digits.length - exponent)}`;
};

/** EN 16931 allows at most two decimals in document amounts (BR-DEC-*), whatever the currency's exponent. */
export const MAX_AMOUNT_DECIMALS = 2;

/** Whether the amount can be written with at most two decimals: always for EUR or JPY; for KWD only whole tens of fils. */
export const fitsTwoDecimals = (minor: number, currency: string): boolean => {
  const excess = minorUnitExponent(currency) - MAX_AMOUNT_DECIMALS;
  return excess <= 0 || minor % 10 ** excess === 0;
};

/**
 * A document amount (totals, VAT breakdown, line net amounts and allowances): the currency's
 * exponent, less the trailing zeros beyond the two decimals EN 16931 admits (KWD 1250 → `1.25`,
 * the same value). An amount that needs more is refused before any document is written.
 */
export const amountOf = (minor: number, currency: string): string => {
  if (!fitsTwoDecimals(minor, currency)) throw new RangeError(`${minor} ${currency} needs more than ${MAX_AMOUNT_DECIMALS} decimals`);
  const exact = decimalOf(minor, currency);
  const excess = minorUnitExponent(currency) - MAX_AMOUNT_DECIMALS;
  return excess > 0 ? exact.slice(0, -excess) : exact;
};

/** A price (BT-146), which may carry every decimal of the currency. */
export const priceOf = decimalOf;

/** A percentage without binary noise: 19 → `19`, 8.5 → `8.5`, 7.25 → `7.25`. */
export const percentOf = (value: number): string => String(Number(value.toFixed(4)));

/** `2026-11-20` → `20261120` (CII date format 102). */
export const compactDate = (isoDate: string): string => isoDate.slice(0, 10).replaceAll('-', '');
