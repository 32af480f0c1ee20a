import type { BusinessSnapshot, CollectionMethod, CustomerSnapshot, DocumentAllowanceCharge, InvoiceAttachment, Metadata, Payee, PaymentMeans, PrecedingInvoice, TaxCategory } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** The statuses stored; `overdue` is never stored but computed on read from the due date. */
export const STORED_STATUSES = ['draft', 'open', 'paid', 'void'] as const;
export type StoredStatus = (typeof STORED_STATUSES)[number];

export const InvoiceEntity = defineEntity({
  name: 'Invoice',
  tableName: 'invoices',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    status: p.enum(STORED_STATUSES),
    customerId: p.uuid(),
    customerName: p.text(),
    /** The subscription that made the invoice; null for one made by hand. */
    subscriptionId: p.uuid().nullable(),
    /**
     * The first day of the subscription period the invoice bills, set with `subscriptionId` by the
     * internal subscription create; one invoice per (workspace, subscription, period start) (unique
     * index `invoices_one_per_subscription_period`). Null: made by hand, or made before the rule.
     */
    subscriptionPeriodStart: p.date().nullable(),
    /** The test clock whose time the invoice follows (its customer's, copied when it is made); null: real time. */
    testClockId: p.uuid().nullable(),
    currency: p.string().length(3),
    collectionMethod: p.enum<readonly CollectionMethod[]>(['send_invoice', 'charge_automatically']),
    issueDate: p.date(),
    dueDate: p.date().nullable(),
    daysUntilDue: p.smallint().nullable(),
    notes: p.text().nullable(),
    footer: p.text().nullable(),
    buyerReference: p.text().nullable(),
    purchaseOrder: p.text().nullable(),
    deliveryDate: p.date().nullable(),
    servicePeriodStart: p.date().nullable(),
    servicePeriodEnd: p.date().nullable(),
    /** BCP 47; frozen at finalization, null while draft. */
    locale: p.text().nullable(),
    /** The draft's own payment means (BG-16), one type; at finalization these, else the account's, frozen. */
    paymentMeans: p.json<PaymentMeans[]>(),
    /** BG-10, when someone other than the seller is paid. */
    payee: p.json<Payee>().nullable(),
    /** BG-3. */
    precedingInvoice: p.json<PrecedingInvoice>().nullable(),
    subtotal: p.bigint('number'),
    discountTotal: p.bigint('number'),
    taxableAmount: p.bigint('number'),
    taxTotal: p.bigint('number'),
    total: p.bigint('number'),
    amountDue: p.bigint('number'),
    amountPaid: p.bigint('number'),
    /** Document-level allowances and charges (BG-20, BG-21) as the invoice reads them, in order. */
    allowances: p.json<DocumentAllowanceCharge[]>(),
    charges: p.json<DocumentAllowanceCharge[]>(),
    allowanceTotal: p.bigint('number'),
    chargeTotal: p.bigint('number'),
    /** Paid before issue (BT-113); at finalization amount_due = total − prepaid_amount. */
    prepaidAmount: p.bigint('number'),
    /** The VAT accounting currency (BT-6) and units of it per unit of `currency`, exact; both or neither. */
    taxCurrency: p.string().length(3).nullable(),
    taxExchangeRate: p.decimal('string').precision(25).scale(10).nullable(),
    number: p.text().nullable(),
    numberFormat: p.text().nullable(),
    numberPeriod: p.text().nullable(),
    numberSequence: p.bigint('number').nullable(),
    businessSnapshot: p.json<BusinessSnapshot>().nullable(),
    customerSnapshot: p.json<CustomerSnapshot>().nullable(),
    publicUrlToken: p.text().nullable(),
    snapshotSha256: p.string().length(64).nullable(),
    chainSha256: p.string().length(64).nullable(),
    /** The version of the hashed document (invoice-integrity.domain.ts); null while draft. */
    snapshotVersion: p.smallint().nullable(),
    finalizedAt: p.datetime(3).nullable(),
    paidAt: p.datetime(3).nullable(),
    paymentReference: p.text().nullable(),
    voidedAt: p.datetime(3).nullable(),
    voidReason: p.text().nullable(),
    overdueEventAt: p.datetime(3).nullable(),
    /** ISO 11649 creditor reference derived from the number at finalization. */
    remittanceReference: p.text().nullable(),
    /** The local day of the last reminder e-mailed (reminder_days); null before the first. */
    lastReminderOn: p.date().nullable(),
    /** Its supporting documents as it lists them, in order (the files are in invoice_attachments); frozen at finalization. */
    attachments: p.json<InvoiceAttachment[]>(),
    metadata: p.json<Metadata>(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
});
export type InvoiceRow = InferEntity<typeof InvoiceEntity>;

export const InvoiceLineEntity = defineEntity({
  name: 'InvoiceLine',
  tableName: 'invoice_lines',
  properties: {
    id: p.uuid().primary(),
    invoiceId: p.uuid(),
    workspaceId: p.uuid(),
    position: p.smallint(),
    priceId: p.uuid().nullable(),
    productId: p.uuid().nullable(),
    description: p.text(),
    quantity: p.bigint('number'),
    unitAmount: p.bigint('number'),
    discountAmountOff: p.bigint('number').nullable(),
    discountPercentOff: p.decimal('number').precision(5).scale(2).nullable(),
    discountAmount: p.bigint('number'),
    taxRate: p.decimal('number').precision(7).scale(4),
    amount: p.bigint('number'),
    tax: p.bigint('number'),
    unitCode: p.text(),
    taxCategory: p.enum<readonly TaxCategory[]>(['S', 'Z', 'E', 'AE', 'K', 'G', 'O']),
    taxExemptionReason: p.text().nullable(),
    /** The line's billing period (BG-26), both days included; both null or both set. */
    periodStart: p.date().nullable(),
    periodEnd: p.date().nullable(),
    /** The exact quantity, unit amount (minor units) and price base quantity; `quantity` and `unitAmount` hold the first two rounded half up. */
    quantityDecimal: p.decimal('string').precision(20).scale(4),
    unitAmountDecimal: p.decimal('string').precision(22).scale(6),
    priceBaseQuantity: p.decimal('string').precision(19).scale(4),
    taxExemptionReasonCode: p.text().nullable(),
    sku: p.text().nullable(),
    standardId: p.text().nullable(),
    standardIdScheme: p.text().nullable(),
    note: p.text().nullable(),
  },
});
export type InvoiceLineRow = InferEntity<typeof InvoiceLineEntity>;
