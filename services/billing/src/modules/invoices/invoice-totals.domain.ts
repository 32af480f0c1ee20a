import { defaultTaxCategory, taxGroupKey, type TaxCategory } from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';

/**
 * Invoice arithmetic (decisions.md, "Money, discount and tax arithmetic"). Everything is an integer:
 * amounts in minor units as BigInt, percentages scaled to integers from their decimal text, so no
 * binary floating point touches money. Any result above Number.MAX_SAFE_INTEGER is refused (400)
 * rather than rounded.
 *
 * Tax follows EN 16931 (BR-CO-17) rather than rounding per line: the lines are grouped by VAT
 * category and rate, each group is taxed once, round_half_up(Σ amount × rate / 100), and the group's
 * tax is shared over its lines by largest remainder, so Σ line tax = tax_total = Σ group tax and an
 * e-invoice's VAT breakdown is exactly the invoice's own figures. Per-line rounding could differ
 * from the group's by up to half a unit per line, which validators reject.
 */

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const PERCENT_OFF_SCALE = 2;
const TAX_RATE_SCALE = 4;

export type LineDiscount = { amountOff: number } | { percentOff: number } | null;

export interface LineInput {
  quantity: number;
  unitAmount: number;
  discount: LineDiscount;
  /** Percentage, such as 8.5 for 8.5 percent. */
  taxRate: number;
  /** Default: S when the rate is above 0, else Z. Lines are taxed together per category and rate. */
  taxCategory?: TaxCategory;
}

export interface LineAmounts {
  subtotal: number;
  discountAmount: number;
  amount: number;
  tax: number;
}

export interface InvoiceTotals {
  subtotal: number;
  discountTotal: number;
  taxableAmount: number;
  taxTotal: number;
  total: number;
}

/**
 * `value` × 10^scale as an exact integer, read from the number's shortest decimal text (8.5 →
 * "8.5" → 85000 at scale 4), so 0.1 + 0.2 style errors cannot creep in.
 */
export const toScaledInteger = (value: number, scale: number): bigint => {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2]?.length ?? 0) > scale) throw new RangeError(`${text} is not a non-negative decimal with at most ${scale} decimals`);
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(scale, '0')}`);
};

/** round_half_up(numerator / denominator) for non-negative integers. */
export const divideRoundingHalfUp = (numerator: bigint, denominator: bigint): bigint => (2n * numerator + denominator) / (2n * denominator);

const safe = (value: bigint, path: string, what: string): number => {
  if (value > MAX) throw invalidRequest(`${what} exceeds ${Number.MAX_SAFE_INTEGER}, the largest amount accepted.`, [{ path, message: `${what} is too large` }]);
  return Number(value);
};

const TAX_DENOMINATOR = 100n * 10n ** BigInt(TAX_RATE_SCALE);

/**
 * One line on its own: subtotal, discount, amount after discount, and the tax it would carry alone
 * in its group (round_half_up(amount × rate / 100)). `path` names it in errors.
 */
export const computeLine = (line: LineInput, path: string): LineAmounts => {
  const subtotal = BigInt(line.quantity) * BigInt(line.unitAmount);
  safe(subtotal, `${path}.quantity`, 'quantity × unit_amount');
  let discount = 0n;
  if (line.discount && 'amountOff' in line.discount) discount = BigInt(line.discount.amountOff);
  if (line.discount && 'percentOff' in line.discount) {
    discount = divideRoundingHalfUp(subtotal * toScaledInteger(line.discount.percentOff, PERCENT_OFF_SCALE), 100n * 10n ** BigInt(PERCENT_OFF_SCALE));
  }
  if (discount > subtotal) {
    throw invalidRequest('A discount may not exceed its line subtotal (quantity × unit_amount).', [
      { path: `${path}.discount`, message: `exceeds the line subtotal ${subtotal}` },
    ]);
  }
  const amount = subtotal - discount;
  const tax = divideRoundingHalfUp(amount * toScaledInteger(line.taxRate, TAX_RATE_SCALE), TAX_DENOMINATOR);
  return {
    subtotal: Number(subtotal),
    discountAmount: Number(discount),
    amount: Number(amount),
    tax: safe(tax, `${path}.tax_rate`, 'line tax'),
  };
};

/** The invoice totals from its lines' amounts. */
export const computeTotals = (lines: readonly LineAmounts[], path = 'items'): InvoiceTotals => {
  const sum = (pick: (line: LineAmounts) => number) => lines.reduce((total, line) => total + BigInt(pick(line)), 0n);
  const subtotal = sum((line) => line.subtotal);
  const discountTotal = sum((line) => line.discountAmount);
  const taxTotal = sum((line) => line.tax);
  const taxableAmount = subtotal - discountTotal;
  return {
    subtotal: safe(subtotal, path, 'subtotal'),
    discountTotal: Number(discountTotal),
    taxableAmount: Number(taxableAmount),
    taxTotal: safe(taxTotal, path, 'tax_total'),
    total: safe(taxableAmount + taxTotal, path, 'total'),
  };
};

/**
 * Each line's share of its group's tax. A group (same category and rate) is taxed
 * round_half_up(Σ amount × rate / 100); each line gets its exact share rounded down, and the units
 * left over (never more than the lines with a fraction) go one each to the largest fractions, ties
 * to the earlier line. Deterministic, and Σ shares = the group's tax exactly.
 */
export const allocateGroupTaxes = (lines: readonly LineInput[], amounts: readonly number[], path = 'items'): number[] => {
  const groups = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const key = taxGroupKey({ tax_category: line.taxCategory ?? defaultTaxCategory(line.taxRate), tax_rate: line.taxRate });
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const taxes = new Array<number>(lines.length).fill(0);
  for (const members of groups.values()) {
    const rate = toScaledInteger(lines[members[0]!]!.taxRate, TAX_RATE_SCALE);
    const exact = members.map((index) => BigInt(amounts[index]!) * rate);
    const groupTax = divideRoundingHalfUp(
      exact.reduce((sum, value) => sum + value, 0n),
      TAX_DENOMINATOR,
    );
    safe(groupTax, `${path}.${members[0]}.tax_rate`, 'tax');
    const shares = exact.map((value) => value / TAX_DENOMINATOR);
    let leftover = groupTax - shares.reduce((sum, value) => sum + value, 0n);
    const byFraction = members
      .map((_, position) => position)
      .sort((a, b) => {
        const fa = exact[a]! % TAX_DENOMINATOR;
        const fb = exact[b]! % TAX_DENOMINATOR;
        return fa === fb ? a - b : fa > fb ? -1 : 1;
      });
    for (const position of byFraction) {
      if (leftover === 0n) break;
      shares[position] = shares[position]! + 1n;
      leftover -= 1n;
    }
    members.forEach((index, position) => {
      taxes[index] = Number(shares[position]);
    });
  }
  return taxes;
};

/** Lines and totals together; the first amount that breaks a rule throws a 400 naming its path. */
export const computeInvoice = (lines: readonly LineInput[], path = 'items') => {
  const alone = lines.map((line, index) => computeLine(line, `${path}.${index}`));
  const taxes = allocateGroupTaxes(lines, alone.map((line) => line.amount), path);
  const amounts = alone.map((line, index): LineAmounts => ({ ...line, tax: taxes[index]! }));
  return { lines: amounts, totals: computeTotals(amounts, path) };
};
