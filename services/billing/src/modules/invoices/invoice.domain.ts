import {
  DEFAULT_UNIT_CODE,
  defaultTaxCategory,
  einvoiceReadiness,
  taxBreakdownOf,
  toPublicId,
  type BusinessSnapshot,
  type CustomerSnapshot,
  type TaxCategory,
  type CreateInvoiceBody,
  type Customer,
  type Discount,
  type DiscountInput,
  type Invoice,
  type InvoiceLine,
  type InvoiceStatus,
  type InvoiceSummary,
  type Period,
  type UpdateInvoiceBody,
} from '@invoicing/contracts';
import { invalidRequest, invalidState } from '@invoicing/service-kit/app-error';
import { canonicalJson } from '@invoicing/service-kit/canonical-json';
import { newId } from '@invoicing/service-kit/ids';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import { addDays } from '../../shared/clock.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { computeInvoice, normalizeDecimal, QUANTITY_SCALE, roundedDecimal, UNIT_AMOUNT_SCALE, type DocumentAdjustments, type InvoiceTotals, type LineDiscount } from './invoice-totals.domain.ts';
import { adjustmentsOf, assertDocumentTerms, documentAllowanceChargesOf, taxTotalInTaxCurrencyOf } from './document-terms.domain.ts';
import { partyChanges, partyColumns } from './invoice-parties.domain.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** A line ready to be priced: from an ad-hoc item, or from a catalog item and its price. */
export interface LineDraft {
  priceId: string | null;
  productId: string | null;
  description: string;
  /** Exact decimal strings ("7.5", "0.125"); the line's integer `quantity` and `unit_amount` are them rounded half up. */
  quantity: string;
  unitAmount: string;
  priceBaseQuantity: string;
  discount: LineDiscount;
  taxRate: number;
  unitCode: string;
  taxCategory: TaxCategory;
  taxExemptionReason: string | null;
  /** The billing period (BG-26), both days included. */
  period: { start: string; end: string } | null;
  taxExemptionReasonCode: string | null;
  sku: string | null;
  standardId: string | null;
  standardIdScheme: string | null;
  note: string | null;
}

/** What a read needs beside the rows: "today" in the workspace's time zone, and the public origin. */
export interface ViewContext {
  today: string;
  publicUrlBase: string;
}

export const toLineDiscount = (discount: DiscountInput | null | undefined): LineDiscount => {
  if (discount?.amount_off !== undefined) return { amountOff: discount.amount_off };
  if (discount?.percent_off !== undefined) return { percentOff: discount.percent_off };
  return null;
};

/**
 * What is still to be paid (decisions.md, "Payments and bank statements"): `amount_due` less the
 * payments while open or overdue; nothing for a draft, a paid or a void invoice.
 */
export const amountRemainingOf = (row: Pick<InvoiceRow, 'status' | 'amountDue' | 'amountPaid'>): number => (row.status === 'open' ? row.amountDue - row.amountPaid : 0);

/** Open and past its due date in the workspace's time zone: reads say `overdue`. */
export const statusOn = (row: Pick<InvoiceRow, 'status' | 'dueDate'>, today: string): InvoiceStatus =>
  row.status === 'open' && row.dueDate != null && row.dueDate < today ? 'overdue' : row.status;

/**
 * Prices the drafts with the invoice's document-level allowances and charges: line rows in order
 * and the invoice totals; an amount that breaks a rule is a 400.
 */
export const priceLines = (invoice: Pick<InvoiceRow, 'id' | 'workspaceId'>, drafts: readonly LineDraft[], adjustments: DocumentAdjustments, path = 'items') => {
  const { lines, totals } = computeInvoice(drafts, path, adjustments);
  const rows = drafts.map((draft, position): InvoiceLineRow => {
    const amounts = lines[position]!;
    return {
      id: newId(),
      invoiceId: invoice.id,
      workspaceId: invoice.workspaceId,
      position,
      priceId: draft.priceId,
      productId: draft.productId,
      description: draft.description,
      quantity: roundedDecimal(draft.quantity, QUANTITY_SCALE),
      unitAmount: roundedDecimal(draft.unitAmount, UNIT_AMOUNT_SCALE),
      quantityDecimal: draft.quantity,
      unitAmountDecimal: draft.unitAmount,
      priceBaseQuantity: draft.priceBaseQuantity,
      discountAmountOff: draft.discount && 'amountOff' in draft.discount ? draft.discount.amountOff : null,
      discountPercentOff: draft.discount && 'percentOff' in draft.discount ? draft.discount.percentOff : null,
      discountAmount: amounts.discountAmount,
      taxRate: draft.taxRate,
      amount: amounts.amount,
      tax: amounts.tax,
      unitCode: draft.unitCode,
      taxCategory: draft.taxCategory,
      taxExemptionReason: draft.taxExemptionReason,
      periodStart: draft.period?.start ?? null,
      periodEnd: draft.period?.end ?? null,
      taxExemptionReasonCode: draft.taxExemptionReasonCode,
      sku: draft.sku,
      standardId: draft.standardId,
      standardIdScheme: draft.standardIdScheme,
      note: draft.note,
    };
  });
  return { rows, totals };
};

/** The stored lines as drafts again, for re-pricing what a PATCH keeps. */
export const draftOf = (row: InvoiceLineRow): LineDraft => ({
  priceId: row.priceId ?? null,
  productId: row.productId ?? null,
  description: row.description,
  quantity: normalizeDecimal(row.quantityDecimal ?? row.quantity),
  unitAmount: normalizeDecimal(row.unitAmountDecimal ?? row.unitAmount),
  priceBaseQuantity: normalizeDecimal(row.priceBaseQuantity ?? '1'),
  discount: row.discountAmountOff != null ? { amountOff: row.discountAmountOff } : row.discountPercentOff != null ? { percentOff: row.discountPercentOff } : null,
  taxRate: row.taxRate,
  unitCode: row.unitCode ?? DEFAULT_UNIT_CODE,
  taxCategory: row.taxCategory ?? defaultTaxCategory(row.taxRate),
  taxExemptionReason: row.taxExemptionReason ?? null,
  period: periodOf(row),
  taxExemptionReasonCode: row.taxExemptionReasonCode ?? null,
  sku: row.sku ?? null,
  standardId: row.standardId ?? null,
  standardIdScheme: row.standardIdScheme ?? null,
  note: row.note ?? null,
});

const periodOf = (row: InvoiceLineRow) => (row.periodStart != null && row.periodEnd != null ? { start: row.periodStart, end: row.periodEnd } : null);

/**
 * Stored lines priced again under the current rule (tax per VAT category and rate): each line with
 * the tax the rule gives it, and the invoice's totals. The one place stored lines are re-priced: a
 * PATCH that keeps them, and a draft priced under the earlier per-line rounding before it is
 * finalized. New lines are priced by `priceLines`.
 */
export const priceAgain = (lines: readonly InvoiceLineRow[], adjustments: DocumentAdjustments): { lines: InvoiceLineRow[]; totals: InvoiceTotals } => {
  const { lines: amounts, totals } = computeInvoice(lines.map(draftOf), 'items', adjustments);
  return { lines: lines.map((line, index) => ({ ...line, tax: amounts[index]!.tax })), totals };
};

/** Whether the stored lines carry the taxes the current rule gives them (see `priceAgain`). */
export const isPricedByCurrentRule = (invoice: Pick<InvoiceRow, 'taxTotal' | 'allowances' | 'charges'>, lines: readonly InvoiceLineRow[]): boolean => {
  const priced = priceAgain(lines, adjustmentsOf(invoice));
  return priced.totals.taxTotal === invoice.taxTotal && priced.lines.every((line, index) => line.tax === lines[index]!.tax);
};

/** A draft is finalized with at least one line. */
export const assertFinalizable = (lines: readonly InvoiceLineRow[]): void => {
  if (lines.length === 0) {
    throw invalidRequest('An invoice needs at least one line to be finalized.', [{ path: 'items', message: 'no lines: PATCH items first' }]);
  }
};

export const totalsColumns = (totals: InvoiceTotals): Pick<InvoiceRow, 'subtotal' | 'discountTotal' | 'allowanceTotal' | 'chargeTotal' | 'taxableAmount' | 'taxTotal' | 'total'> => ({ ...totals });

interface DueDates {
  dueDate: string | null;
  daysUntilDue: number | null;
}

/**
 * The due date after a create or PATCH: a `due_date` sent wins (and `days_until_due` is then
 * ignored); else `days_until_due`, sent or kept, sets it from the issue date after the change
 * (decisions.md), so a due date it set moves with the issue date. `daysUntilDue` is non-null
 * exactly when the due date came from it: sending `due_date`, or `days_until_due: null`, leaves a
 * due date that stays where it is. It may not fall before the issue date.
 */
export const dueDatesFor = (
  issueDate: string,
  sent: { due_date?: string | null | undefined; days_until_due?: number | null | undefined },
  current: DueDates,
): DueDates => {
  let next = current;
  if (sent.due_date !== undefined) next = { dueDate: sent.due_date, daysUntilDue: null };
  else if (sent.days_until_due === null) next = { ...current, daysUntilDue: null };
  else {
    const days = sent.days_until_due ?? current.daysUntilDue;
    if (days != null) next = { dueDate: addDays(issueDate, days), daysUntilDue: days };
  }
  if (next.dueDate != null && next.dueDate < issueDate) {
    // Reported on the field the request moved: a due date sent, or else the issue date.
    throw invalidRequest(
      'due_date may not be before issue_date.',
      sent.due_date !== undefined ? [{ path: 'due_date', message: `is before the issue date ${issueDate}` }] : [{ path: 'issue_date', message: `is after the due date ${next.dueDate}` }],
    );
  }
  return next;
};

/** The draft's columns a PATCH would set, the time of the change aside. */
export type DraftChanges = Partial<Omit<InvoiceRow, 'updatedAt'>>;

/**
 * The columns a PATCH sets on a draft; omitted fields keep their values. A new customer comes with
 * its name (stored for search), a due date that `days_until_due` set moves with the issue date,
 * and the totals are those of the lines after the change. Only a draft can be edited.
 */
export const draftChanges = (
  current: InvoiceRow,
  patch: UpdateInvoiceBody,
  { customer, totals }: { customer: Pick<Customer, 'name'> | undefined; totals: InvoiceTotals },
): DraftChanges => {
  assertEditable(current, 'edited');
  const issueDate = patch.issue_date ?? current.issueDate;
  return {
    ...(customer && patch.customer !== undefined ? { customerId: patch.customer, customerName: customer.name } : {}),
    currency: patch.currency ?? current.currency,
    ...(patch.collection_method !== undefined ? { collectionMethod: patch.collection_method } : {}),
    issueDate,
    ...dueDatesFor(issueDate, patch, { dueDate: current.dueDate ?? null, daysUntilDue: current.daysUntilDue ?? null }),
    ...(patch.notes !== undefined ? { notes: patch.notes } : {}),
    ...(patch.footer !== undefined ? { footer: patch.footer } : {}),
    ...(patch.buyer_reference !== undefined ? { buyerReference: patch.buyer_reference } : {}),
    ...(patch.purchase_order !== undefined ? { purchaseOrder: patch.purchase_order } : {}),
    ...(patch.delivery_date !== undefined ? { deliveryDate: patch.delivery_date } : {}),
    ...(patch.service_period !== undefined ? servicePeriodColumns(patch.service_period) : {}),
    ...partyChanges(patch),
    ...documentTermColumns(patch),
    ...totalsColumns(totals),
    ...(patch.metadata !== undefined ? { metadata: mergeMetadata(current.metadata, patch.metadata) } : {}),
  };
};

/**
 * The document-level terms a create or PATCH sets: allowances and charges (replacing each list),
 * the prepaid amount, the tax currency and its rate (`tax_currency: null` removes both). The
 * draft's totals follow from the allowances and charges (`documentAdjustmentsAfter`).
 */
const documentTermColumns = (
  sent: Pick<UpdateInvoiceBody, 'allowances' | 'charges' | 'prepaid_amount' | 'tax_currency' | 'tax_exchange_rate'>,
): Partial<Pick<InvoiceRow, 'allowances' | 'charges' | 'prepaidAmount' | 'taxCurrency' | 'taxExchangeRate'>> => ({
  ...(sent.allowances !== undefined ? { allowances: documentAllowanceChargesOf(sent.allowances) } : {}),
  ...(sent.charges !== undefined ? { charges: documentAllowanceChargesOf(sent.charges) } : {}),
  ...(sent.prepaid_amount !== undefined ? { prepaidAmount: sent.prepaid_amount } : {}),
  ...(sent.tax_currency !== undefined ? { taxCurrency: sent.tax_currency } : {}),
  ...(sent.tax_exchange_rate !== undefined ? { taxExchangeRate: sent.tax_exchange_rate === null ? null : normalizeDecimal(sent.tax_exchange_rate) } : {}),
  ...(sent.tax_currency === null && sent.tax_exchange_rate === undefined ? { taxExchangeRate: null } : {}),
});

/** The allowances and charges a draft has after a PATCH: those sent, else those it had. */
export const documentAdjustmentsAfter = (current: Pick<InvoiceRow, 'allowances' | 'charges'>, patch: Pick<UpdateInvoiceBody, 'allowances' | 'charges'>): DocumentAdjustments =>
  adjustmentsOf({ ...current, ...documentTermColumns({ allowances: patch.allowances, charges: patch.charges }) });

/** The draft after the changes, checked as a whole (prepaid amount, tax currency): a 400 changes nothing. */
export const assertDraftAfter = (current: InvoiceRow, changes: DraftChanges): void => assertDocumentTerms({ ...current, ...changes } as InvoiceRow);

const servicePeriodColumns = (period: Period | null): Pick<InvoiceRow, 'servicePeriodStart' | 'servicePeriodEnd'> => ({
  servicePeriodStart: period?.start ?? null,
  servicePeriodEnd: period?.end ?? null,
});

// JSON columns (payment means, payee, …) are new objects on every PATCH: compared by content, whatever their key order.
const sameValue = (stored: unknown, sent: unknown): boolean =>
  typeof sent === 'object' && sent !== null && !(sent instanceof Date) ? canonicalJson(stored ?? null) === canonicalJson(sent) : (stored ?? null) === (sent ?? null);

/** Whether applying the changes would alter any column: a PATCH of the values already there changes nothing. */
export const changesAnything = (row: InvoiceRow, changes: DraftChanges): boolean =>
  Object.entries(changes).some(([property, value]) =>
    // An exact decimal read back from the database carries its scale's zeros.
    property === 'taxExchangeRate' && value != null && row.taxExchangeRate != null
      ? normalizeDecimal(row.taxExchangeRate) !== value
      : !sameValue(row[property as keyof InvoiceRow], value),
  );

/** The subscription making a draft and the first day of the period it bills (billing's internal route for the subscriptions service). */
export interface SubscriptionPeriod {
  id: string;
  periodStart: string;
}

export const newDraft = (
  workspaceId: string,
  body: CreateInvoiceBody,
  context: { customerName: string; currency: string; today: string; now: Date; subscription?: SubscriptionPeriod | null; testClockId?: string | null },
): InvoiceRow => {
  const issueDate = body.issue_date ?? context.today;
  return {
    id: newId(),
    workspaceId,
    status: 'draft',
    customerId: body.customer,
    customerName: context.customerName,
    subscriptionId: context.subscription?.id ?? null,
    subscriptionPeriodStart: context.subscription?.periodStart ?? null,
    testClockId: context.testClockId ?? null,
    currency: context.currency,
    collectionMethod: body.collection_method ?? 'send_invoice',
    issueDate,
    ...dueDatesFor(issueDate, body, { dueDate: null, daysUntilDue: null }),
    notes: body.notes ?? null,
    footer: body.footer ?? null,
    buyerReference: body.buyer_reference ?? null,
    purchaseOrder: body.purchase_order ?? null,
    deliveryDate: body.delivery_date ?? null,
    ...servicePeriodColumns(body.service_period ?? null),
    locale: null,
    ...partyColumns(body),
    allowances: [],
    charges: [],
    prepaidAmount: 0,
    taxCurrency: null,
    taxExchangeRate: null,
    ...documentTermColumns(body),
    subtotal: 0,
    discountTotal: 0,
    allowanceTotal: 0,
    chargeTotal: 0,
    taxableAmount: 0,
    taxTotal: 0,
    total: 0,
    amountDue: 0,
    amountPaid: 0,
    number: null,
    numberFormat: null,
    numberPeriod: null,
    numberSequence: null,
    businessSnapshot: null,
    customerSnapshot: null,
    publicUrlToken: null,
    snapshotSha256: null,
    chainSha256: null,
    snapshotVersion: null,
    finalizedAt: null,
    paidAt: null,
    paymentReference: null,
    voidedAt: null,
    voidReason: null,
    overdueEventAt: null,
    remittanceReference: null,
    lastReminderOn: null,
    attachments: [],
    metadata: mergeMetadata({}, body.metadata),
    createdAt: context.now,
    updatedAt: context.now,
  };
};

// Transitions (spec "States and transitions", decisions.md "Status and errors"): every refusal
// is a 409 invalid_state and changes nothing.

const stateName = (row: Pick<InvoiceRow, 'status'>) => (row.status === 'void' ? 'void' : row.status);

/** PATCH and DELETE: drafts only. */
export const assertEditable = (row: Pick<InvoiceRow, 'status'>, action: 'edited' | 'deleted'): void => {
  if (row.status !== 'draft') throw invalidState(`This invoice is ${stateName(row)}: only a draft can be ${action}.`);
};

/** A status change asked for: finalize (to open), pay, void. */
export type StatusChange =
  | { to: 'open' }
  | { to: 'paid'; paidOn?: string | undefined; paymentReference?: string | null | undefined }
  | { to: 'void'; reason?: string | null | undefined };

/** When a change happens, seen from the workspace: the instant, and "today" in its time zone. */
export interface TransitionMoment {
  now: Date;
  today: string;
}

/** The columns a status change sets (`updatedAt` included). */
export type TransitionColumns = Partial<InvoiceRow> & Pick<InvoiceRow, 'status' | 'amountDue' | 'updatedAt'>;

/** The columns finalizing a draft sets through its status change: exactly these. */
export type OpenedColumns = Pick<InvoiceRow, 'status' | 'amountDue' | 'finalizedAt' | 'updatedAt'>;

/**
 * The one place an invoice's status changes (spec "States and transitions"): draft → open
 * (finalize), open → paid, open → void; overdue is open past its due date, so it pays and voids
 * like open. Guard clauses first: a refusal is a 409 invalid_state (a `paid_on` in the future a 400)
 * and changes nothing. Answers the columns to write, or null for a finalize of an invoice already
 * open, which is answered as it is.
 */
type TransitionRow = Pick<InvoiceRow, 'status' | 'total'> & Partial<Pick<InvoiceRow, 'amountPaid' | 'prepaidAmount'>>;
export function transition(row: TransitionRow, change: { to: 'open' }, at: TransitionMoment): OpenedColumns | null;
export function transition(row: TransitionRow, change: Exclude<StatusChange, { to: 'open' }>, at: TransitionMoment): TransitionColumns;
export function transition(row: TransitionRow, change: StatusChange, at: TransitionMoment): TransitionColumns | null {
  switch (change.to) {
    case 'open':
      if (row.status === 'open') return null;
      if (row.status !== 'draft') throw invalidState(`This invoice is ${stateName(row)}: it was finalized before and can no longer change.`);
      // What was paid before issue (BT-113) is not due.
      return { status: 'open', amountDue: row.total - (row.prepaidAmount ?? 0), finalizedAt: at.now, updatedAt: at.now };
    case 'paid':
      if (row.status === 'paid') throw invalidState('This invoice is already paid.');
      if (row.status !== 'open') throw invalidState(`This invoice is ${stateName(row)}: only an open or overdue invoice can be paid.`);
      if (change.paidOn !== undefined && change.paidOn > at.today) {
        throw invalidRequest('paid_on may not be in the future.', [{ path: 'paid_on', message: `is after today (${at.today})` }]);
      }
      return {
        status: 'paid',
        // A payment date is stored as midnight UTC of that date.
        paidAt: change.paidOn !== undefined ? new Date(`${change.paidOn}T00:00:00.000Z`) : at.now,
        paymentReference: change.paymentReference ?? null,
        amountPaid: row.total,
        amountDue: 0,
        updatedAt: at.now,
      };
    case 'void':
      if (row.status === 'paid') throw invalidState('This invoice is paid: a paid invoice cannot be voided.');
      if (row.status === 'void') throw invalidState('This invoice is already void.');
      if (row.status !== 'open') throw invalidState('This invoice is a draft: delete it instead; only an open or overdue invoice can be voided.');
      // Money has arrived for it: it is no longer unpaid (decisions.md, "Payments and bank statements").
      if ((row.amountPaid ?? 0) > 0) throw invalidState('This invoice has payments recorded: an invoice with a payment cannot be voided.');
      return { status: 'void', voidedAt: at.now, voidReason: change.reason ?? null, amountDue: 0, updatedAt: at.now };
  }
}

/**
 * A draft whose prepaid amount (BT-113, above 0) is its whole total has nothing left to pay once
 * finalized: it goes on from open to paid at once, through `transition` like any payment that
 * settles an invoice, paid at the moment of finalization. Null for any other draft.
 */
export const settledAtFinalization = (draft: Pick<InvoiceRow, 'prepaidAmount' | 'total'>, opened: OpenedColumns, at: TransitionMoment): (OpenedColumns & Pick<InvoiceRow, 'paidAt'>) | null => {
  if (!(draft.prepaidAmount > 0 && opened.amountDue === 0)) return null;
  const paid = transition({ status: opened.status, total: draft.total }, { to: 'paid' }, at);
  return { status: paid.status, amountDue: paid.amountDue, finalizedAt: opened.finalizedAt, updatedAt: opened.updatedAt, paidAt: paid.paidAt ?? at.now };
};

// Views

// Only the key that is set, the shape `discount` takes on input, so a line read can be sent back.
const discountView = (row: InvoiceLineRow): Discount | null =>
  row.discountAmountOff != null ? { amount_off: row.discountAmountOff } : row.discountPercentOff != null ? { percent_off: row.discountPercentOff } : null;

export const lineView = (row: InvoiceLineRow): InvoiceLine => ({
  id: toPublicId('invoiceItem', row.id),
  object: 'invoiceitem',
  livemode: livemodeOf(row.workspaceId),
  price: row.priceId ? toPublicId('price', row.priceId) : null,
  product: row.productId ? toPublicId('product', row.productId) : null,
  description: row.description,
  quantity: row.quantity,
  unit_amount: row.unitAmount,
  discount: discountView(row),
  discount_amount: row.discountAmount,
  tax_rate: row.taxRate,
  amount: row.amount,
  tax: row.tax,
  unit_code: row.unitCode,
  tax_category: row.taxCategory,
  tax_exemption_reason: row.taxExemptionReason ?? null,
  period: periodOf(row),
  quantity_decimal: normalizeDecimal(row.quantityDecimal ?? row.quantity),
  unit_amount_decimal: normalizeDecimal(row.unitAmountDecimal ?? row.unitAmount),
  price_base_quantity: normalizeDecimal(row.priceBaseQuantity ?? '1'),
  tax_exemption_reason_code: row.taxExemptionReasonCode ?? null,
  sku: row.sku ?? null,
  standard_id: row.standardId ?? null,
  standard_id_scheme: row.standardIdScheme ?? null,
  note: row.note ?? null,
});

// Snapshots frozen before the e-invoice fields existed lack their keys: they read as null.
const BUSINESS_SNAPSHOT_ADDITIONS = {
  phone: null,
  contact_name: null,
  electronic_address: null,
  electronic_address_scheme: null,
  payment_account: null,
  trading_name: null,
  registration_id: null,
  registration_id_scheme: null,
  legal_info: null,
  tax_representative: null,
};
const CUSTOMER_SNAPSHOT_ADDITIONS = { electronic_address: null, electronic_address_scheme: null, buyer_reference: null, identifier: null, identifier_scheme: null, contact_name: null };
const businessSnapshotView = (snapshot: BusinessSnapshot | null | undefined): BusinessSnapshot | null => (snapshot ? { ...BUSINESS_SNAPSHOT_ADDITIONS, ...snapshot } : null);
const customerSnapshotView = (snapshot: CustomerSnapshot | null | undefined): CustomerSnapshot | null => (snapshot ? { ...CUSTOMER_SNAPSHOT_ADDITIONS, ...snapshot } : null);

const iso = (value: Date | null | undefined): string | null => (value ? value.toISOString() : null);

export const invoiceSummaryView = (row: InvoiceRow, context: ViewContext): InvoiceSummary => ({
  id: toPublicId('invoice', row.id),
  object: 'invoice',
  livemode: livemodeOf(row.workspaceId),
  number: row.number ?? null,
  status: statusOn(row, context.today),
  customer: toPublicId('customer', row.customerId),
  customer_name: row.customerName,
  subscription: row.subscriptionId ? toPublicId('subscription', row.subscriptionId) : null,
  currency: row.currency,
  collection_method: row.collectionMethod,
  issue_date: row.issueDate,
  due_date: row.dueDate ?? null,
  days_until_due: row.daysUntilDue ?? null,
  subtotal: row.subtotal,
  discount_total: row.discountTotal,
  allowance_total: row.allowanceTotal ?? 0,
  charge_total: row.chargeTotal ?? 0,
  taxable_amount: row.taxableAmount,
  tax_total: row.taxTotal,
  total: row.total,
  prepaid_amount: row.prepaidAmount ?? 0,
  amount_due: row.amountDue,
  amount_paid: row.amountPaid,
  amount_remaining: amountRemainingOf(row),
  remittance_reference: row.remittanceReference ?? null,
  notes: row.notes ?? null,
  footer: row.footer ?? null,
  buyer_reference: row.buyerReference ?? null,
  purchase_order: row.purchaseOrder ?? null,
  delivery_date: row.deliveryDate ?? null,
  service_period: row.servicePeriodStart && row.servicePeriodEnd ? { start: row.servicePeriodStart, end: row.servicePeriodEnd } : null,
  locale: row.locale ?? null,
  allowances: row.allowances ?? [],
  charges: row.charges ?? [],
  tax_currency: row.taxCurrency ?? null,
  tax_exchange_rate: row.taxExchangeRate != null ? normalizeDecimal(row.taxExchangeRate) : null,
  tax_total_in_tax_currency: taxTotalInTaxCurrencyOf(row),
  payment_means: row.paymentMeans ?? [],
  payee: row.payee ?? null,
  preceding_invoice: row.precedingInvoice ?? null,
  attachments: row.attachments,
  business_snapshot: businessSnapshotView(row.businessSnapshot),
  customer_snapshot: customerSnapshotView(row.customerSnapshot),
  public_url_token: row.publicUrlToken ?? null,
  public_url: row.publicUrlToken ? `${context.publicUrlBase}/i/${row.publicUrlToken}` : null,
  finalized_at: iso(row.finalizedAt),
  paid_at: iso(row.paidAt),
  payment_reference: row.paymentReference ?? null,
  voided_at: iso(row.voidedAt),
  void_reason: row.voidReason ?? null,
  snapshot_sha256: row.snapshotSha256 ?? null,
  chain_sha256: row.chainSha256 ?? null,
  metadata: row.metadata,
  created_at: row.createdAt.toISOString(),
  updated_at: row.updatedAt.toISOString(),
});

/**
 * The invoice with its lines, its VAT breakdown (summed from the stored lines, so it always adds up
 * to the stored totals) and, once finalized, which e-invoice profiles it qualifies for.
 */
export const invoiceView = (row: InvoiceRow, lines: readonly InvoiceLineRow[], context: ViewContext): Invoice => {
  const lineViews = lines.map(lineView);
  const summary = invoiceSummaryView(row, context);
  const invoice = { ...summary, lines: { object: 'list' as const, data: lineViews }, tax_breakdown: taxBreakdownOf(lineViews, summary) };
  return { ...invoice, einvoice: row.status === 'draft' ? null : einvoiceReadiness(invoice) };
};
