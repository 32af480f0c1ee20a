import type { Invoice } from '@invoicing/contracts';
import { brandColorsOf, type BrandColors } from '@invoicing/i18n';
import type { en } from './messages/en.ts';
import { lineViewOf, type LineView } from './line-view.domain.ts';
import { billToOf, sellerOf, taxRepresentativeOf, type PartyView } from './party-view.domain.ts';
import { paymentOf, type PaymentView } from './payment-view.domain.ts';
import { amountDueAtIssue, exemptionsOf, settlementOf, taxCurrencyOf, totalsOf, vatGroupsOf, type TotalRow, type VatGroupView } from './totals-view.domain.ts';
import { nonBlank, periodText, writerFor, type FieldView, type Writer } from './view-writer.domain.ts';

// The entry point of the invoice view: it assembles the parts written beside it (parties, lines,
// totals and VAT summary, payment) into the one view the PDF and the public page render.
export type { LineView } from './line-view.domain.ts';
export { addressLinesOf, type PartyView } from './party-view.domain.ts';
export { paymentOf, type PaymentMeansView, type PaymentView } from './payment-view.domain.ts';
export type { TotalRow, VatGroupView } from './totals-view.domain.ts';
export { writerFor, type FieldView } from './view-writer.domain.ts';

export type PaperSize = 'A4' | 'Letter';

/** Where Letter is the office paper; everywhere else prints on A4. */
const LETTER_COUNTRIES = new Set(['US', 'CA', 'MX', 'PH', 'CL', 'CO', 'VE', 'CR', 'GT', 'DO', 'PR', 'PA', 'SV', 'NI', 'HN', 'BZ']);

/** The words a document prints as they are: headings, column titles, field names. */
const LABEL_KEYS = [
  'invoice',
  'invoice_number',
  'bill_to',
  'vat_id',
  'lines_caption',
  'description',
  'quantity',
  'unit_price',
  'discount',
  'vat_rate',
  'amount',
  'totals_caption',
  'vat_summary',
  'vat_category',
  'rate',
  'net_amount',
  'vat',
  'payment',
  'iban',
  'bic',
  'account_holder',
  'payment_reference',
  'payment_instructions',
  'payment_to',
  'notes',
  'tax_representative',
  'attachments',
  'skip_to_invoice',
  'status',
  'download_pdf',
  'other_formats',
  'pdf_digest',
] as const satisfies readonly (keyof typeof en)[];
export type DocumentLabels = Record<(typeof LABEL_KEYS)[number], string>;

/**
 * Everything the printed invoice shows, already formatted in the invoice's language. It comes
 * only from what finalization froze (snapshots, number, dates, lines, totals, texts, language),
 * never from the status, payments or the public link, which change later: the same invoice
 * always gives the same document.
 */
export interface InvoiceDocumentView {
  /** BCP 47: the document's language (`<html lang>`, the tagged PDF's language). */
  lang: string;
  labels: DocumentLabels;
  title: string;
  number: string;
  paper: PaperSize;
  colors: BrandColors;
  /** Number, dates, references and currency, in the order a reader looks for them. */
  fields: FieldView[];
  seller: PartyView;
  billTo: PartyView;
  /** The seller's tax representative (BG-11). */
  taxRepresentative: PartyView | null;
  /** "Refers to invoice X of <date>" (BG-3). */
  precedingInvoice: string | null;
  lines: LineView[];
  hasDiscounts: boolean;
  hasLinePeriods: boolean;
  /** Subtotal, line discounts, each document allowance and charge, net amount, VAT. */
  totals: TotalRow[];
  total: TotalRow;
  /** After the total, when part was paid before the invoice was issued: the prepaid amount and what is left to pay. */
  settlement: TotalRow[];
  /** The VAT total in the tax currency and the rate it was converted at (BT-6, BT-111). */
  taxCurrency: string | null;
  vatGroups: VatGroupView[];
  /** Why a group charges no (or no normal) VAT: the category, the reason given, and for reverse charge and intra-community supply the legal wording. */
  exemptions: string[];
  payment: PaymentView;
  paymentInstructions: string | null;
  notes: string | null;
  /** Supporting documents (BG-24): "timesheet.csv (Timesheet November)". */
  attachments: string[];
  /** The seller's additional legal information (BT-33), in the footer. */
  legalInfo: string | null;
  footer: string | null;
  /** The test mode marker, in the document's language, on an invoice made with a test key; null on a live one. */
  testMode: string | null;
}

export const paperFor = (country: string | null): PaperSize => (country && LETTER_COUNTRIES.has(country.toUpperCase()) ? 'Letter' : 'A4');

/** Number, dates and references: the delivery date, or the service period when there is one (§ 14 (4) 6. UStG, Art. 226 (7)). */
const fieldsOf = (invoice: Invoice, number: string, writer: Writer): FieldView[] => {
  const { t, formats } = writer;
  const fields: FieldView[] = [
    { label: t('invoice_number'), value: number },
    { label: t('issue_date'), value: formats.date(invoice.issue_date) },
  ];
  if (invoice.service_period) fields.push({ label: t('service_period'), value: periodText(invoice.service_period, writer) });
  if (invoice.delivery_date) fields.push({ label: t('delivery_date'), value: formats.date(invoice.delivery_date) });
  if (invoice.due_date) fields.push({ label: t('due_date'), value: formats.date(invoice.due_date) });
  if (nonBlank(invoice.buyer_reference)) fields.push({ label: t('buyer_reference'), value: invoice.buyer_reference! });
  if (nonBlank(invoice.purchase_order)) fields.push({ label: t('purchase_order'), value: invoice.purchase_order! });
  fields.push({ label: t('currency'), value: invoice.currency });
  return fields;
};

const precedingInvoiceOf = ({ preceding_invoice: preceding }: Invoice, { t, formats }: Writer): string | null => {
  if (!preceding) return null;
  return preceding.issue_date
    ? t('preceding_invoice', { number: preceding.number, date: formats.date(preceding.issue_date) })
    : t('preceding_invoice_undated', { number: preceding.number });
};

const attachmentsOf = (invoice: Invoice): string[] =>
  invoice.attachments.map((attachment) => {
    const description = nonBlank(attachment.description);
    return description ? `${attachment.filename} (${description})` : attachment.filename;
  });

/** The printed invoice of a finalized invoice, in its language; throws on a draft, which has no document. */
export const toInvoiceDocumentView = (invoice: Invoice): InvoiceDocumentView => {
  const { business_snapshot: business, customer_snapshot: customer, number } = invoice;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no document`);
  const writer = writerFor(invoice);
  const { t, formats, money } = writer;
  const lang = formats.locale;
  const lines = invoice.lines.data;
  const lineViews = lines.map((line) => lineViewOf(line, invoice.currency, writer));
  return {
    lang,
    labels: Object.fromEntries(LABEL_KEYS.map((key) => [key, t(key)])) as DocumentLabels,
    title: t('invoice_title', { number }),
    number,
    paper: paperFor(business.address.country),
    colors: brandColorsOf(business.brand_color),
    fields: fieldsOf(invoice, number, writer),
    seller: sellerOf(business, lang, writer),
    billTo: billToOf(customer, lang, writer),
    taxRepresentative: taxRepresentativeOf(invoice, lang),
    precedingInvoice: precedingInvoiceOf(invoice, writer),
    lines: lineViews,
    hasDiscounts: lines.some((line) => line.discount_amount > 0),
    hasLinePeriods: lineViews.some((line) => line.period !== null),
    totals: totalsOf(invoice, writer),
    total: { label: t('total', { currency: invoice.currency }), amount: money(invoice.total) },
    settlement: settlementOf(invoice, writer),
    taxCurrency: taxCurrencyOf(invoice, writer),
    vatGroups: vatGroupsOf(invoice, writer),
    exemptions: exemptionsOf(invoice, writer),
    // The PDF is what finalization issued: the amount it made due, whatever was paid since.
    payment: paymentOf(invoice, amountDueAtIssue(invoice), writer),
    paymentInstructions: nonBlank(business.payment_instructions),
    notes: nonBlank(invoice.notes),
    attachments: attachmentsOf(invoice),
    legalInfo: nonBlank(business.legal_info),
    footer: nonBlank(invoice.footer),
    // Only an invoice that says it is test data: one read before invoices had `livemode` (an event queued earlier) is live.
    testMode: invoice.livemode === false ? t('test_mode') : null,
  };
};
