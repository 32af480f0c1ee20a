import { createHash } from 'node:crypto';
import type { Invoice, InvoiceLine } from '@invoicing/contracts';
import { canonicalJson } from '@invoicing/service-kit/canonical-json';

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

/**
 * The document hashed has a version, stored per invoice (`snapshot_version`), so what an invoice
 * was hashed over never changes when the API grows: version 1 is the invoice as responses showed
 * it before the e-invoice fields (issue #12), version 2 adds them, version 3 adds the document's
 * language, its service period, the subscription that made it and each line's period, version 4
 * the EN 16931 business terms beyond the first set (issue #25: allowances and charges, prepaid
 * amount, tax currency, payment means, payee, preceding invoice, attachments, party and item
 * identifiers, exact decimal quantities and prices). Each version names the keys it hashes, of the snapshots and lines
 * too, so a key the API adds later never changes what an earlier invoice was hashed over. Fields
 * derived on read (`tax_breakdown`, `einvoice`) are never hashed: they follow from the hashed lines.
 */
export type DocumentVersion = 1 | 2 | 3 | 4;
export const CURRENT_DOCUMENT_VERSION: DocumentVersion = 4;

const FROZEN_FIELDS_V1 = [
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

const FROZEN_FIELDS_V2 = [...FROZEN_FIELDS_V1, 'buyer_reference', 'purchase_order', 'delivery_date'] as const satisfies readonly (keyof Invoice)[];
const FROZEN_FIELDS_V3 = [...FROZEN_FIELDS_V2, 'locale', 'service_period', 'subscription'] as const satisfies readonly (keyof Invoice)[];
const FROZEN_FIELDS_V4 = [
  ...FROZEN_FIELDS_V3,
  'allowance_total',
  'charge_total',
  'prepaid_amount',
  'allowances',
  'charges',
  'tax_currency',
  'tax_exchange_rate',
  'tax_total_in_tax_currency',
  'payment_means',
  'payee',
  'preceding_invoice',
  'attachments',
] as const satisfies readonly (keyof Invoice)[];

// What version 1 held of the snapshots and lines: the keys responses had then, and no others.
const BUSINESS_SNAPSHOT_V1 = ['business_name', 'email', 'address', 'tax_id', 'payment_instructions', 'brand_color'] as const;
const CUSTOMER_SNAPSHOT_V1 = ['name', 'email', 'address', 'tax_id'] as const;
const LINE_V1 = ['id', 'object', 'price', 'product', 'description', 'quantity', 'unit_amount', 'discount', 'discount_amount', 'tax_rate', 'amount', 'tax'] as const;
// Version 2 (and 3) hold every key responses had when version 2 began.
const BUSINESS_SNAPSHOT_V2 = [...BUSINESS_SNAPSHOT_V1, 'phone', 'contact_name', 'electronic_address', 'electronic_address_scheme', 'payment_account'] as const;
const CUSTOMER_SNAPSHOT_V2 = [...CUSTOMER_SNAPSHOT_V1, 'electronic_address', 'electronic_address_scheme', 'buyer_reference'] as const;
const LINE_V2 = [...LINE_V1, 'unit_code', 'tax_category', 'tax_exemption_reason'] as const;
const LINE_V3 = [...LINE_V2, 'period'] as const;
// Version 4: the business terms of issue #25.
const BUSINESS_SNAPSHOT_V4 = [...BUSINESS_SNAPSHOT_V2, 'trading_name', 'registration_id', 'registration_id_scheme', 'legal_info', 'tax_representative'] as const;
const CUSTOMER_SNAPSHOT_V4 = [...CUSTOMER_SNAPSHOT_V2, 'identifier', 'identifier_scheme', 'contact_name'] as const;
const LINE_V4 = [...LINE_V3, 'quantity_decimal', 'unit_amount_decimal', 'price_base_quantity', 'tax_exemption_reason_code', 'sku', 'standard_id', 'standard_id_scheme', 'note'] as const;

const KEYS = {
  2: { fields: FROZEN_FIELDS_V2, business: BUSINESS_SNAPSHOT_V2, customer: CUSTOMER_SNAPSHOT_V2, line: LINE_V2 },
  3: { fields: FROZEN_FIELDS_V3, business: BUSINESS_SNAPSHOT_V2, customer: CUSTOMER_SNAPSHOT_V2, line: LINE_V3 },
  4: { fields: FROZEN_FIELDS_V4, business: BUSINESS_SNAPSHOT_V4, customer: CUSTOMER_SNAPSHOT_V4, line: LINE_V4 },
} as const satisfies Record<Exclude<DocumentVersion, 1>, { fields: readonly (keyof Invoice)[]; business: readonly string[]; customer: readonly string[]; line: readonly (keyof InvoiceLine)[] }>;

const pick = <T extends object>(value: T | null, keys: readonly (keyof T)[]) =>
  value === null ? null : Object.fromEntries(keys.map((key) => [key, value[key]]));

/**
 * A line discount as version 1 hashes it: both keys, the unset one null. Responses now carry only
 * the key that is set; the hashed shape stays, so invoices finalized before still verify.
 */
const hashedDiscount = (discount: InvoiceLine['discount']) =>
  discount === null
    ? null
    : { amount_off: 'amount_off' in discount ? discount.amount_off : null, percent_off: 'percent_off' in discount ? discount.percent_off : null };

/** The frozen part of a finalized invoice, with its lines, as hashed in `version`. */
export const finalizedDocument = (invoice: Invoice, version: DocumentVersion) => {
  if (version === 1) {
    return {
      version,
      ...Object.fromEntries(FROZEN_FIELDS_V1.map((field) => [field, invoice[field]])),
      business_snapshot: pick(invoice.business_snapshot, BUSINESS_SNAPSHOT_V1),
      customer_snapshot: pick(invoice.customer_snapshot, CUSTOMER_SNAPSHOT_V1),
      lines: invoice.lines.data.map((line) => ({ ...pick(line, LINE_V1), discount: hashedDiscount(line.discount) })),
    };
  }
  const keys = KEYS[version];
  return {
    version,
    ...Object.fromEntries(keys.fields.map((field) => [field, invoice[field]])),
    business_snapshot: pick(invoice.business_snapshot, keys.business),
    customer_snapshot: pick(invoice.customer_snapshot, keys.customer),
    lines: invoice.lines.data.map((line) => ({ ...pick(line, keys.line), discount: hashedDiscount(line.discount) })),
  };
};

export { canonicalJson };

export const sha256Hex = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');

export const snapshotHashOf = (invoice: Invoice, version: DocumentVersion): string => sha256Hex(canonicalJson(finalizedDocument(invoice, version)));

/** The version an invoice was hashed in: 1 for those finalized before versions were stored. */
export const documentVersionOf = (stored: number | null | undefined): DocumentVersion => (stored === 2 || stored === 3 || stored === 4 ? stored : 1);

export const chainHashOf = (previousChain: string, snapshotHash: string): string => sha256Hex(`${previousChain}${snapshotHash}`);
