import { einvoiceReadiness, type Customer, type CustomerSnapshot, type EinvoiceRequired, type Invoice } from '@invoicing/contracts';
import { invalidRequest, type AppError } from '@invoicing/service-kit/app-error';
import { businessSnapshotOf, electronicAddressOf } from '../account/account.domain.ts';
import type { AccountRow } from '../account/account.entity.ts';
import { invoicePaymentMeansOf } from '../account/payment-means.domain.ts';
import { chainHashOf, CURRENT_DOCUMENT_VERSION, snapshotHashOf } from '../numbering/invoice-integrity.domain.ts';
import { formatNumber, type Series } from '../numbering/numbering.domain.ts';
import { invoiceView, type OpenedColumns, type ViewContext } from './invoice.domain.ts';
import { remittanceReferenceOf } from './remittance-reference.domain.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';

/**
 * Finalization as pure rules: a draft is frozen (its status change, the buyer and seller as they
 * are now, the public link), then numbered in its series and chained onto the invoice before it.
 * These are the only columns a finalization writes; the compiler holds both functions below to
 * this list, so the write (invoice.repository.ts) cannot miss one they set.
 */
export const FINALIZED_PROPERTIES = [
  'status',
  'amountDue',
  'paidAt',
  'finalizedAt',
  'updatedAt',
  'customerName',
  'customerSnapshot',
  'businessSnapshot',
  'buyerReference',
  'deliveryDate',
  'locale',
  'paymentMeans',
  'snapshotVersion',
  'publicUrlToken',
  'number',
  'numberFormat',
  'numberPeriod',
  'numberSequence',
  'snapshotSha256',
  'chainSha256',
  'remittanceReference',
] as const satisfies readonly (keyof InvoiceRow)[];

export type FinalizedColumns = Pick<InvoiceRow, (typeof FINALIZED_PROPERTIES)[number]>;
type NumberProperty = 'number' | 'numberFormat' | 'numberPeriod' | 'numberSequence' | 'snapshotSha256' | 'chainSha256' | 'remittanceReference';
/** What freezing a draft sets: everything finalization sets but its number and hashes. */
export type FrozenColumns = Omit<FinalizedColumns, NumberProperty>;
type NumberColumns = Pick<FinalizedColumns, NumberProperty>;

/** What finalization freezes of the buyer, e-invoice data included; later edits to the customer do not reach it. */
export const customerSnapshotOf = (customer: Customer): CustomerSnapshot => ({
  name: customer.name,
  email: customer.email,
  address: customer.address,
  tax_id: customer.tax_id,
  ...electronicAddressOf({ electronicAddress: customer.electronic_address, electronicAddressScheme: customer.electronic_address_scheme, email: customer.email }),
  buyer_reference: customer.buyer_reference,
  identifier: customer.identifier,
  identifier_scheme: customer.identifier_scheme,
  contact_name: customer.contact_name,
});

/**
 * A draft frozen for finalization: `opened` (what `transition` to open sets, then to paid for a
 * draft its prepaid amount settles: `settledAtFinalization`), the customer as the
 * catalog has it now and the seller as the account has it now, and a new public link.
 */
export const freezeDraft = (
  draft: InvoiceRow,
  { opened, customer, account, publicUrlToken }: { opened: OpenedColumns & Partial<Pick<InvoiceRow, 'paidAt'>>; customer: Customer; account: AccountRow; publicUrlToken: string },
): FrozenColumns => ({
  status: opened.status,
  amountDue: opened.amountDue,
  paidAt: opened.paidAt ?? null,
  finalizedAt: opened.finalizedAt,
  updatedAt: opened.updatedAt,
  customerName: customer.name,
  customerSnapshot: customerSnapshotOf(customer),
  businessSnapshot: businessSnapshotOf(account),
  // Empty on the draft: the customer's default reference, and delivery on the day of issue unless
  // a service period says when the service was supplied (decisions.md; § 14 (4) 6. UStG needs one of them).
  buyerReference: draft.buyerReference ?? customer.buyer_reference ?? null,
  deliveryDate: draft.deliveryDate ?? (draft.servicePeriodStart ? null : draft.issueDate),
  locale: customer.preferred_locale ?? account.locale,
  paymentMeans: invoicePaymentMeansOf(draft.paymentMeans ?? [], account.paymentMeans ?? []),
  snapshotVersion: CURRENT_DOCUMENT_VERSION,
  publicUrlToken,
});

/**
 * The invoice as the API reads it, a draft with its e-invoice readiness as finalize would freeze it
 * now: frozen with `freezeDraft` from the customer as the catalog has it now and the account as
 * it is now, then checked by `einvoiceReadiness` as finalize checks it (`einvoiceRefusal`). The
 * draft itself stays as it is (no snapshots, no link). `customer` null: it could not be read (the
 * catalog unavailable), so the draft's `einvoice` is null. Any other invoice reads as `invoiceView`
 * has it, from its own snapshots.
 */
export const invoiceViewNow = (
  row: InvoiceRow,
  lines: readonly InvoiceLineRow[],
  view: ViewContext,
  { customer, account }: { customer: Customer | null | undefined; account: AccountRow },
): Invoice => {
  const invoice = invoiceView(row, lines, view);
  if (row.status !== 'draft' || !customer) return invoice;
  const opened = { status: row.status, amountDue: row.amountDue, finalizedAt: row.finalizedAt, updatedAt: row.updatedAt };
  const frozen: InvoiceRow = { ...row, ...freezeDraft(row, { opened, customer, account, publicUrlToken: '' }) };
  return { ...invoice, einvoice: einvoiceReadiness(invoiceView(frozen, lines, view)) };
};

const PROFILE_NAMES = { en16931: 'EN 16931', xrechnung: 'XRechnung' } as const;

/**
 * Why finalize refuses a frozen draft when the account requires e-invoices (`einvoice_required`):
 * its readiness in that profile lists what is missing, and a finalized invoice could never be
 * completed (it is frozen). Null when it may be finalized.
 */
export const einvoiceRefusal = (required: EinvoiceRequired, frozen: Pick<Invoice, 'einvoice'>): AppError | null => {
  if (required === 'none' || !frozen.einvoice) return null;
  const { ready, missing } = frozen.einvoice[required];
  if (ready) return null;
  return invalidRequest(
    `The account requires invoices that qualify as ${PROFILE_NAMES[required]} e-invoices (einvoice_required), and this draft lacks ${missing.map(({ path }) => path).join(', ')}; nothing was finalized. Complete the account, the customer or the draft, or change einvoice_required.`,
    missing.map(({ path, message }) => ({ path, message })),
  );
};

/** A frozen draft waiting for its number: the invoice as it will be but for number and hashes. */
export interface FrozenInvoice {
  invoice: InvoiceRow;
  lines: readonly InvoiceLineRow[];
  view: ViewContext;
}

/** A finalized invoice: its row as stored, the columns finalization set on it, and the invoice as the API reads it. */
export interface NumberedInvoice {
  row: InvoiceRow;
  columns: FinalizedColumns;
  invoice: Invoice;
}

/**
 * Numbers frozen drafts of one series in order, `first` for the first, and chains each onto the
 * one before it, starting from `previousChain` (the series' last chain value): its snapshot hash
 * is of the invoice as the API reads it with its number, its chain hash of the chain so far and
 * that snapshot. Also answers the series' new chain head.
 */
export const numberAndChain = (frozen: readonly FrozenInvoice[], series: Series, first: number, previousChain: string): { numbered: NumberedInvoice[]; chainHead: string } => {
  let chain = previousChain;
  const numbered = frozen.map(({ invoice, lines, view }, index): NumberedInvoice => {
    const sequence = first + index;
    const number = formatNumber(series.format, series.period, sequence);
    // The remittance reference follows from the number; it is not hashed (the number is).
    const withNumber: InvoiceRow = { ...invoice, number, numberFormat: series.format, numberPeriod: series.period, numberSequence: sequence, remittanceReference: remittanceReferenceOf(number) };
    const unhashed = invoiceView(withNumber, lines, view);
    const snapshot = snapshotHashOf(unhashed, CURRENT_DOCUMENT_VERSION);
    chain = chainHashOf(chain, snapshot);
    const numberColumns: NumberColumns = {
      number: withNumber.number,
      numberFormat: series.format,
      numberPeriod: series.period,
      numberSequence: sequence,
      snapshotSha256: snapshot,
      chainSha256: chain,
      remittanceReference: withNumber.remittanceReference ?? null,
    };
    const row: InvoiceRow = { ...withNumber, ...numberColumns };
    return { row, columns: finalizedColumnsOf(row), invoice: { ...unhashed, snapshot_sha256: snapshot, chain_sha256: chain } };
  });
  return { numbered, chainHead: chain };
};

/** The columns finalization set, read off the finalized row. */
const finalizedColumnsOf = (row: InvoiceRow): FinalizedColumns =>
  Object.fromEntries(FINALIZED_PROPERTIES.map((property) => [property, row[property]])) as FinalizedColumns;
