import { minorUnitExponent } from '@invoicing/contracts';
import { minorDecimalToDecimal, minorToDecimal } from '@invoicing/i18n';

/** Minor units as a decimal with the currency's ISO 4217 exponent: 123456 EUR → `1234.56`, 1235 JPY → `1235`, 1250 KWD → `1.250`. */
export const decimalOf = minorToDecimal;

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

const DECIMAL = /^(\d+)(?:\.(\d+))?$/;

/**
 * A price (BT-146) from minor units given as an exact decimal string, in major units with every
 * decimal of the currency and any finer ones it has: `9500` EUR → `95.00`, `0.125` EUR → `0.00125`,
 * `12.5` JPY → `12.5`. Digits are moved, never computed, so no binary fraction creeps in; the PDF
 * prints unit prices through the same function.
 */
export const priceOf = minorDecimalToDecimal;

/** A quantity (BT-129, BT-149) as an exact decimal without trailing zeros: `7.50` → `7.5`, `12` → `12`. */
export const quantityOf = (quantity: string): string => {
  const match = DECIMAL.exec(quantity);
  if (!match) throw new RangeError(`${quantity} is not a non-negative decimal quantity`);
  const [, whole = '0', fraction = ''] = match;
  const decimals = fraction.replace(/0+$/, '');
  const integer = whole.replace(/^0+(?=\d)/, '');
  return decimals === '' ? integer : `${integer}.${decimals}`;
};

/** A percentage without binary noise: 19 → `19`, 8.5 → `8.5`, 7.25 → `7.25`. */
export const percentOf = (value: number): string => String(Number(value.toFixed(4)));

/** `2026-11-20` → `20261120` (CII date format 102). */
export const compactDate = (isoDate: string): string => isoDate.slice(0, 10).replaceAll('-', '');
