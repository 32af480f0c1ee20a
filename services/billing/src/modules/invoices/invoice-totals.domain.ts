import { defaultTaxCategory, minorUnitExponent, taxGroupKey, type TaxCategory } from '@invoicing/contracts';
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
 *
 * Document-level allowances and charges (BG-20, BG-21) change the base of the VAT group they name:
 * the group is taxed round_half_up((Σ line amount − allowances + charges) × rate / 100), and that
 * tax is shared over the group's lines in proportion to their amounts (equally when all are 0), so
 * Σ line tax = tax_total still holds. Without allowances or charges the shares are exactly those of
 * the rule before them.
 *
 * Decimal quantities and unit amounts (BT-129, BT-146, BT-149) are exact decimal strings, read
 * into scaled BigInts: a line's subtotal is round_half_up(quantity × unit_amount / price_base_quantity).
 */

const MAX = BigInt(Number.MAX_SAFE_INTEGER);
const PERCENT_OFF_SCALE = 2;
const TAX_RATE_SCALE = 4;
export const QUANTITY_SCALE = 4;
export const UNIT_AMOUNT_SCALE = 6;
const EXCHANGE_RATE_SCALE = 10;

export type LineDiscount = { amountOff: number } | { percentOff: number } | null;

export interface LineInput {
  /** An integer, or an exact decimal string with up to 4 decimals ("7.5"). */
  quantity: number | string;
  /** Minor units: an integer, or an exact decimal string with up to 6 decimals ("0.125"). */
  unitAmount: number | string;
  /** The quantity `unitAmount` is the price of (BT-149), up to 4 decimals; default "1". */
  priceBaseQuantity?: string | undefined;
  discount: LineDiscount;
  /** Percentage, such as 8.5 for 8.5 percent. */
  taxRate: number;
  /** Default: S when the rate is above 0, else Z. Lines are taxed together per category and rate. */
  taxCategory?: TaxCategory;
}

/** A document-level allowance or charge as priced: its amount, and the VAT group whose base it changes. */
export interface DocumentAdjustment {
  amount: number;
  taxCategory: TaxCategory;
  taxRate: number;
}

export interface DocumentAdjustments {
  allowances: readonly DocumentAdjustment[];
  charges: readonly DocumentAdjustment[];
}

const NO_ADJUSTMENTS: DocumentAdjustments = { allowances: [], charges: [] };

export interface LineAmounts {
  subtotal: number;
  discountAmount: number;
  amount: number;
  tax: number;
}

export interface InvoiceTotals {
  subtotal: number;
  discountTotal: number;
  allowanceTotal: number;
  chargeTotal: number;
  taxableAmount: number;
  taxTotal: number;
  total: number;
}

/**
 * `value` × 10^scale as an exact integer, read from its decimal text (8.5 → "8.5" → 85000 at
 * scale 4; a string is read as it is), so 0.1 + 0.2 style errors cannot creep in.
 */
export const toScaledInteger = (value: number | string, scale: number): bigint => {
  const text = String(value);
  const match = /^(\d+)(?:\.(\d+))?$/.exec(text);
  if (!match || (match[2]?.length ?? 0) > scale) throw new RangeError(`${text} is not a non-negative decimal with at most ${scale} decimals`);
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(scale, '0')}`);
};

/** A decimal's shortest text: no trailing zeros after the point, no point without decimals ("7.5000" → "7.5", "1500.000000" → "1500"). */
export const normalizeDecimal = (value: number | string): string => {
  const text = String(value);
  if (!text.includes('.')) return text.replace(/^0+(?=\d)/, '');
  const [whole, fraction] = text.split('.') as [string, string];
  const trimmed = fraction.replace(/0+$/, '');
  const integer = whole.replace(/^0+(?=\d)/, '');
  return trimmed ? `${integer}.${trimmed}` : integer;
};

/** round_half_up(numerator / denominator) for non-negative integers. */
export const divideRoundingHalfUp = (numerator: bigint, denominator: bigint): bigint => (2n * numerator + denominator) / (2n * denominator);

/** An exact decimal rounded half up to an integer: the `quantity` and `unit_amount` a decimal line reads as. */
export const roundedDecimal = (value: number | string, scale: number): number => Number(divideRoundingHalfUp(toScaledInteger(value, scale), 10n ** BigInt(scale)));

const safe = (value: bigint, path: string, what: string): number => {
  if (value > MAX) throw invalidRequest(`${what} exceeds ${Number.MAX_SAFE_INTEGER}, the largest amount accepted.`, [{ path, message: `${what} is too large` }]);
  return Number(value);
};

const TAX_DENOMINATOR = 100n * 10n ** BigInt(TAX_RATE_SCALE);
const PERCENT_DENOMINATOR = 100n * 10n ** BigInt(PERCENT_OFF_SCALE);

/** round_half_up(quantity × unit_amount / price_base_quantity), exact: the line before its discount. */
export const lineSubtotalOf = (line: Pick<LineInput, 'quantity' | 'unitAmount' | 'priceBaseQuantity'>): bigint =>
  divideRoundingHalfUp(
    toScaledInteger(line.quantity, QUANTITY_SCALE) * toScaledInteger(line.unitAmount, UNIT_AMOUNT_SCALE),
    toScaledInteger(line.priceBaseQuantity ?? '1', QUANTITY_SCALE) * 10n ** BigInt(UNIT_AMOUNT_SCALE),
  );

/**
 * One line on its own: subtotal, discount, amount after discount, and the tax it would carry alone
 * in its group (round_half_up(amount × rate / 100)). `path` names it in errors.
 */
export const computeLine = (line: LineInput, path: string): LineAmounts => {
  const subtotal = lineSubtotalOf(line);
  safe(subtotal, `${path}.quantity`, 'quantity × unit_amount');
  let discount = 0n;
  if (line.discount && 'amountOff' in line.discount) discount = BigInt(line.discount.amountOff);
  if (line.discount && 'percentOff' in line.discount) {
    discount = divideRoundingHalfUp(subtotal * toScaledInteger(line.discount.percentOff, PERCENT_OFF_SCALE), PERCENT_DENOMINATOR);
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

/** An allowance or charge given as `{ percent, base_amount }`: round_half_up(base_amount × percent / 100). */
export const percentAmountOf = (baseAmount: number, percent: number): number =>
  Number(divideRoundingHalfUp(BigInt(baseAmount) * toScaledInteger(percent, PERCENT_OFF_SCALE), PERCENT_DENOMINATOR));

const groupKeyOf = (line: { taxCategory?: TaxCategory | undefined; taxRate: number }) =>
  taxGroupKey({ tax_category: line.taxCategory ?? defaultTaxCategory(line.taxRate), tax_rate: line.taxRate });

/**
 * What the document-level allowances and charges add to each VAT group's base (negative for
 * allowances). Each must name a group that a line has (its category and rate), and no group's base
 * may go below 0: a 400 naming the allowance or charge otherwise.
 */
export const groupAdjustmentsOf = (lines: readonly LineInput[], amounts: readonly number[], adjustments: DocumentAdjustments): Map<string, bigint> => {
  const bases = new Map<string, bigint>();
  lines.forEach((line, index) => bases.set(groupKeyOf(line), (bases.get(groupKeyOf(line)) ?? 0n) + BigInt(amounts[index]!)));
  const byGroup = new Map<string, bigint>();
  const firstOf = new Map<string, string>();
  const add = (list: readonly DocumentAdjustment[], field: 'allowances' | 'charges', sign: bigint) =>
    list.forEach((adjustment, index) => {
      const key = groupKeyOf(adjustment);
      if (!bases.has(key)) {
        const category = adjustment.taxCategory;
        throw invalidRequest(`An allowance or charge counts in the VAT group of a line: no line has tax_category ${category} at tax_rate ${adjustment.taxRate}.`, [
          { path: `${field}.${index}.tax_rate`, message: `no line has tax_category ${category} at tax_rate ${adjustment.taxRate}; use the category and rate of a line` },
        ]);
      }
      byGroup.set(key, (byGroup.get(key) ?? 0n) + sign * BigInt(adjustment.amount));
      if (sign < 0n && !firstOf.has(key)) firstOf.set(key, `${field}.${index}.amount`);
    });
  add(adjustments.allowances, 'allowances', -1n);
  add(adjustments.charges, 'charges', 1n);
  for (const [key, change] of byGroup) {
    const base = bases.get(key)! + change;
    if (base < 0n) {
      throw invalidRequest('Allowances may not take a VAT group below 0: its lines and charges are less than its allowances.', [
        { path: firstOf.get(key)!, message: `takes the VAT group ${key.replace('|', ' ')}% to ${base}, below 0` },
      ]);
    }
  }
  return byGroup;
};

/**
 * Each line's share of its group's tax. A group (same category and rate) is taxed
 * round_half_up(base × rate / 100), its base being Σ line amount plus what document-level charges
 * add and allowances take (`adjustments`, by group). Each line's exact share of the group's exact
 * tax is in proportion to its amount (equally when all the group's amounts are 0); it gets that
 * share rounded down, and the units left over (never more than the lines with a fraction) go one
 * each to the largest fractions, ties to the earlier line. Deterministic, and Σ shares = the
 * group's tax exactly. Without adjustments a line's exact share is its amount × rate / 100.
 */
export const allocateGroupTaxes = (lines: readonly LineInput[], amounts: readonly number[], path = 'items', adjustments: ReadonlyMap<string, bigint> = new Map()): number[] => {
  const groups = new Map<string, number[]>();
  lines.forEach((line, index) => {
    const key = groupKeyOf(line);
    groups.set(key, [...(groups.get(key) ?? []), index]);
  });
  const taxes = new Array<number>(lines.length).fill(0);
  for (const [key, members] of groups) {
    const rate = toScaledInteger(lines[members[0]!]!.taxRate, TAX_RATE_SCALE);
    const lineSum = members.reduce((sum, index) => sum + BigInt(amounts[index]!), 0n);
    const base = lineSum + (adjustments.get(key) ?? 0n);
    const groupTax = divideRoundingHalfUp(base * rate, TAX_DENOMINATOR);
    safe(groupTax, `${path}.${members[0]}.tax_rate`, 'tax');
    const weights = members.map((index) => (lineSum > 0n ? BigInt(amounts[index]!) : 1n));
    const weightSum = weights.reduce((sum, value) => sum + value, 0n);
    // share = weight / weightSum × base × rate / 100, kept as numerator over `denominator`.
    const denominator = TAX_DENOMINATOR * weightSum;
    const exact = weights.map((weight) => weight * base * rate);
    const shares = exact.map((value) => value / denominator);
    let leftover = groupTax - shares.reduce((sum, value) => sum + value, 0n);
    const byFraction = members
      .map((_, position) => position)
      .sort((a, b) => {
        const fa = exact[a]! % denominator;
        const fb = exact[b]! % denominator;
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

/** The invoice totals from its lines' amounts and the document-level allowances and charges. */
export const computeTotals = (lines: readonly LineAmounts[], path = 'items', adjustments: DocumentAdjustments = NO_ADJUSTMENTS): InvoiceTotals => {
  const sum = <T>(list: readonly T[], pick: (item: T) => number) => list.reduce((total, item) => total + BigInt(pick(item)), 0n);
  const subtotal = sum(lines, (line) => line.subtotal);
  const discountTotal = sum(lines, (line) => line.discountAmount);
  const allowanceTotal = sum(adjustments.allowances, (allowance) => allowance.amount);
  const chargeTotal = sum(adjustments.charges, (charge) => charge.amount);
  const taxTotal = sum(lines, (line) => line.tax);
  const taxableAmount = subtotal - discountTotal - allowanceTotal + chargeTotal;
  return {
    subtotal: safe(subtotal, path, 'subtotal'),
    discountTotal: Number(discountTotal),
    allowanceTotal: safe(allowanceTotal, 'allowances', 'allowance_total'),
    chargeTotal: safe(chargeTotal, 'charges', 'charge_total'),
    taxableAmount: safe(taxableAmount, adjustments.charges.length ? 'charges' : path, 'taxable_amount'),
    taxTotal: safe(taxTotal, path, 'tax_total'),
    total: safe(taxableAmount + taxTotal, path, 'total'),
  };
};

/** Lines and totals together; the first amount that breaks a rule throws a 400 naming its path. */
export const computeInvoice = (lines: readonly LineInput[], path = 'items', adjustments: DocumentAdjustments = NO_ADJUSTMENTS) => {
  const alone = lines.map((line, index) => computeLine(line, `${path}.${index}`));
  const amounts = alone.map((line) => line.amount);
  const taxes = allocateGroupTaxes(lines, amounts, path, groupAdjustmentsOf(lines, amounts, adjustments));
  const priced = alone.map((line, index): LineAmounts => ({ ...line, tax: taxes[index]! }));
  return { lines: priced, totals: computeTotals(priced, path, adjustments) };
};

/**
 * The VAT total in the tax currency (BT-111): round_half_up(tax_total × rate), where the rate is
 * units of the tax currency per unit of the invoice currency, converted between the two
 * currencies' minor units (EUR cents → HUF fillér: × rate; EUR cents → JPY yen: × rate / 100).
 */
export const taxTotalInTaxCurrency = (taxTotal: number, rate: string, currency: string, taxCurrency: string): number => {
  const exponents = { from: BigInt(minorUnitExponent(currency)), to: BigInt(minorUnitExponent(taxCurrency)) };
  const converted = divideRoundingHalfUp(BigInt(taxTotal) * toScaledInteger(rate, EXCHANGE_RATE_SCALE) * 10n ** exponents.to, 10n ** (BigInt(EXCHANGE_RATE_SCALE) + exponents.from));
  return safe(converted, 'tax_exchange_rate', 'the VAT total in tax_currency');
};
