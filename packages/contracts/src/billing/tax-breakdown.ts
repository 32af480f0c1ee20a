import { z } from 'zod';
import { TAX_CATEGORIES, TaxCategory } from './einvoice-fields.ts';

/**
 * The VAT breakdown (EN 16931 BG-23): one entry per VAT category and rate, in the order of
 * TAX_CATEGORIES, then the highest rate first. Built from the lines as stored and the document-level
 * allowances and charges, so it always adds up to the invoice: Σ taxable_amount = taxable_amount,
 * Σ tax = tax_total. The PDF, the public page
 * and the e-invoices print these figures and no others.
 */

export const TaxBreakdownEntry = z
  .object({
    tax_category: TaxCategory.describe('VAT category code (BT-118).'),
    tax_rate: z.number().describe('Percentage (BT-119): 19 means 19 percent.'),
    taxable_amount: z
      .int()
      .describe('Σ line `amount` of the lines in this category and rate, less the document-level `allowances` and plus the `charges` in it (BT-116), minor units.'),
    tax: z
      .int()
      .describe(
        'VAT of this category and rate (BT-117), minor units: round_half_up(taxable_amount × tax_rate / 100) for every invoice finalized from this version on (EN 16931 BR-CO-17); invoices finalized before keep the sum of their per-line taxes.',
      ),
    tax_exemption_reason: z
      .string()
      .nullable()
      .describe('Why no VAT is charged (BT-120): the distinct reasons of the lines, joined by "; ". Null for S and Z.'),
  })
  .meta({ id: 'TaxBreakdownEntry' });
export type TaxBreakdownEntry = z.infer<typeof TaxBreakdownEntry>;

export interface BreakdownLine {
  tax_category: TaxCategory;
  tax_rate: number;
  amount: number;
  tax: number;
  tax_exemption_reason: string | null;
}

const TAX_RATE_SCALE = 4;

/** `rate` (a percentage with at most 4 decimals) × 10^4 as an exact integer, read from its decimal text. */
const scaledRate = (rate: number): bigint => {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(String(rate));
  if (!match || (match[2]?.length ?? 0) > TAX_RATE_SCALE) throw new RangeError(`${rate} is not a tax rate with at most ${TAX_RATE_SCALE} decimals`);
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(TAX_RATE_SCALE, '0')}`);
};

/**
 * round_half_up(taxable × rate / 100) in exact integers: the VAT of one category and rate
 * (EN 16931 BR-CO-17, BR-S-09), and since this version the tax the invoice charges.
 */
export const categoryTaxOf = (taxableAmount: bigint, taxRate: number): bigint => {
  const denominator = 100n * 10n ** BigInt(TAX_RATE_SCALE);
  const numerator = taxableAmount * scaledRate(taxRate);
  // Half away from zero: a negative taxable amount (credit) rounds as its positive mirror.
  const magnitude = (2n * (numerator < 0n ? -numerator : numerator) + denominator) / (2n * denominator);
  return numerator < 0n ? -magnitude : magnitude;
};

export const taxGroupKey = (line: { tax_category: TaxCategory; tax_rate: number }): string => `${line.tax_category}|${line.tax_rate}`;

/** A document-level allowance or charge (BG-20, BG-21): the amount it takes from or adds to its category and rate. */
export interface BreakdownAdjustment {
  tax_category: TaxCategory;
  tax_rate: number;
  amount: number;
}

/**
 * The breakdown of the lines: their taxable amounts and taxes summed per category and rate, each
 * group's taxable amount less its allowances and plus its charges (which always name a group of a
 * line: billing refuses any other). The lines' taxes already hold the group's whole tax.
 */
export const taxBreakdownOf = (
  lines: readonly BreakdownLine[],
  { allowances = [], charges = [] }: { allowances?: readonly BreakdownAdjustment[]; charges?: readonly BreakdownAdjustment[] } = {},
): TaxBreakdownEntry[] => {
  const groups = new Map<string, { entry: TaxBreakdownEntry; reasons: string[] }>();
  for (const line of lines) {
    const key = taxGroupKey(line);
    let group = groups.get(key);
    if (!group) {
      group = { entry: { tax_category: line.tax_category, tax_rate: line.tax_rate, taxable_amount: 0, tax: 0, tax_exemption_reason: null }, reasons: [] };
      groups.set(key, group);
    }
    group.entry.taxable_amount += line.amount;
    group.entry.tax += line.tax;
    if (line.tax_exemption_reason != null && !group.reasons.includes(line.tax_exemption_reason)) group.reasons.push(line.tax_exemption_reason);
  }
  for (const [list, sign] of [[allowances, -1], [charges, 1]] as const) {
    for (const adjustment of list) {
      const group = groups.get(taxGroupKey(adjustment));
      if (group) group.entry.taxable_amount += sign * adjustment.amount;
    }
  }
  return [...groups.values()]
    .map(({ entry, reasons }) => ({ ...entry, tax_exemption_reason: reasons.length ? reasons.join('; ') : null }))
    .sort((a, b) => TAX_CATEGORIES.indexOf(a.tax_category) - TAX_CATEGORIES.indexOf(b.tax_category) || b.tax_rate - a.tax_rate);
};
