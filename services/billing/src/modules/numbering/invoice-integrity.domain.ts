import { createHash } from 'node:crypto';
import type { Invoice, InvoiceLine } from '@invoicing/contracts';

/**
 * Tamper evidence for finalized invoices. `snapshot_sha256` hashes the canonical JSON of the
 * invoice's frozen fields (what finalization fixed for ever: never status, payment or voiding,
 * which legitimately change later, nor the public link, which is a credential that may be
 * rotated, not part of the document); `chain_sha256` hashes the previous invoice's chain value in
 * the same series followed by this snapshot hash. Recomputing both along a series finds any
 * edit (snapshot mismatch) and any deletion (missing number, chain mismatch).
 */

/** The chain value before the first invoice of a series. */
export const GENESIS_CHAIN = '0'.repeat(64);

const FROZEN_FIELDS = [
  'id',
  'number',
  'customer',
  'customer_name',
  'currency',
  'collection_method',
  'issue_date',
  'due_date',
  'days_until_due',
  'subtotal',
  'discount_total',
  'taxable_amount',
  'tax_total',
  'total',
  'notes',
  'footer',
  'business_snapshot',
  'customer_snapshot',
  'finalized_at',
  'created_at',
] as const satisfies readonly (keyof Invoice)[];

/**
 * A line discount as version 1 hashes it: both keys, the unset one null. Responses now carry only
 * the key that is set; the hashed shape stays, so invoices finalized before still verify.
 */
const hashedDiscount = (discount: InvoiceLine['discount']) =>
  discount === null
    ? null
    : { amount_off: 'amount_off' in discount ? discount.amount_off : null, percent_off: 'percent_off' in discount ? discount.percent_off : null };

/** The frozen part of a finalized invoice, with its lines, as hashed. */
export const finalizedDocument = (invoice: Invoice) => ({
  version: 1,
  ...Object.fromEntries(FROZEN_FIELDS.map((field) => [field, invoice[field]])),
  lines: invoice.lines.data.map((line) => ({ ...line, discount: hashedDiscount(line.discount) })),
});

/** JSON with object keys sorted at every depth and no whitespace: one text per value. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const snapshotHashOf = (invoice: Invoice): string => sha256Hex(canonicalJson(finalizedDocument(invoice)));

export const chainHashOf = (previousChain: string, snapshotHash: string): string => sha256Hex(`${previousChain}${snapshotHash}`);
