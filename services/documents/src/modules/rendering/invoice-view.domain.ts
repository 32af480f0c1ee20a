import addressFormatter from '@fragaria/address-formatter';
import { DEFAULT_LOCALE, EXEMPT_TAX_CATEGORIES, type Address, type Invoice, type InvoiceLine, type TaxBreakdownEntry } from '@invoicing/contracts';
import { formatsFor, type LocaleFormats, type Translate } from '@invoicing/i18n';
import { documentMessages } from './document-messages.ts';
import type { en } from './messages/en.ts';
import { epcPayload, qrCodeSvg } from './payment-qr.domain.ts';

export type PaperSize = 'A4' | 'Letter';

/** Where Letter is the office paper; everywhere else prints on A4. */
const LETTER_COUNTRIES = new Set(['US', 'CA', 'MX', 'PH', 'CL', 'CO', 'VE', 'CR', 'GT', 'DO', 'PR', 'PA', 'SV', 'NI', 'HN', 'BZ']);

const DEFAULT_BRAND_COLOR = '#1F3A5F';
const HEX_COLOR = /^#[0-9A-Fa-f]{6}$/;

const INK = '#1B1F24';
const WHITE = '#FFFFFF';

/** WCAG 2 relative luminance of a #RRGGBB colour. */
const luminance = (hex: string): number => {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const channel = Number.parseInt(hex.slice(i, i + 2), 16) / 255;
    return channel <= 0.03928 ? channel / 12.92 : ((channel + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
};

/** WCAG 2 contrast ratio of two #RRGGBB colours, 1 to 21. */
export const contrastRatio = (a: string, b: string): number => {
  const [light, dark] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (light! + 0.05) / (dark! + 0.05);
};

/** The seller's colour and the text colours that stay readable with it (WCAG AA, 4.5:1), whatever colour they chose. */
export interface BrandColors {
  /** Rules, bars and button backgrounds. */
  brand: string;
  /** Text on a brand-coloured background: white or ink, whichever contrasts more. */
  onBrand: string;
  /** The brand colour as text on white, or ink when it is too light to read. */
  brandText: string;
}

export const brandColorsOf = (chosen: string | null): BrandColors => {
  const brand = chosen && HEX_COLOR.test(chosen) ? chosen.toUpperCase() : DEFAULT_BRAND_COLOR;
  return {
    brand,
    onBrand: contrastRatio(brand, WHITE) >= contrastRatio(brand, INK) ? WHITE : INK,
    brandText: contrastRatio(brand, WHITE) >= 4.5 ? brand : INK,
  };
};

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
  'notes',
  'skip_to_invoice',
  'status',
  'download_pdf',
  'other_formats',
  'pdf_digest',
] as const satisfies readonly (keyof typeof en)[];
export type DocumentLabels = Record<(typeof LABEL_KEYS)[number], string>;

export interface PartyView {
  name: string | null;
  addressLines: string[];
  vatId: string | null;
  email: string | null;
}

export interface LineView {
  description: string;
  period: string | null;
  quantity: string;
  unitPrice: string;
  discount: string | null;
  taxRate: string;
  amount: string;
}

export interface TotalRow {
  label: string;
  amount: string;
}

export interface FieldView {
  label: string;
  value: string;
}

export interface VatGroupView {
  category: string;
  rate: string;
  netAmount: string;
  vat: string;
}

export interface PaymentView {
  /** "Please pay €1,445.15 by Dec 20, 2026." */
  terms: string;
  account: { iban: string; bic: string | null; holder: string | null } | null;
  /** What the payer quotes with the transfer: the remittance reference, else the number. */
  reference: string;
  /** An EPC069-12 code for a EUR invoice paid into a credit-transfer account; null otherwise. */
  qr: { svg: string; caption: string } | null;
}

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
  lines: LineView[];
  hasDiscounts: boolean;
  hasLinePeriods: boolean;
  totals: TotalRow[];
  total: TotalRow;
  vatGroups: VatGroupView[];
  /** Why a group charges no (or no normal) VAT: the category, the reason given, and for reverse charge and intra-community supply the legal wording. */
  exemptions: string[];
  payment: PaymentView;
  paymentInstructions: string | null;
  notes: string | null;
  footer: string | null;
}

const nonBlank = (value: string | null | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/**
 * The address as the post of its country expects it (OpenCage's per-country templates, through
 * `@fragaria/address-formatter`): "80331 München" in Germany, "London / SW1A 2AA" in Britain,
 * "Springfield, IL 62701" in the US. `line2` (an apartment, c/o) follows the street line; the
 * country's name, in the document's language, ends the address.
 */
export const addressLinesOf = (address: Address, locale: string = DEFAULT_LOCALE): string[] => {
  const street = nonBlank(address.line1);
  const formatted = addressFormatter.format(
    {
      ...(street ? { road: street } : {}),
      ...(nonBlank(address.city) ? { city: nonBlank(address.city)! } : {}),
      ...(nonBlank(address.state) ? { state: nonBlank(address.state)! } : {}),
      ...(nonBlank(address.postal_code) ? { postcode: nonBlank(address.postal_code)! } : {}),
      ...(nonBlank(address.country) ? { countryCode: nonBlank(address.country)!.toUpperCase() } : {}),
    },
    { output: 'array', appendCountry: false },
  );
  const lines = formatted.map((line) => line.trim()).filter((line) => line !== '');
  const extra = nonBlank(address.line2);
  if (extra) lines.splice(street ? 1 : 0, 0, extra);
  const country = nonBlank(address.country);
  if (country) lines.push(new Intl.DisplayNames(locale, { type: 'region', fallback: 'code' }).of(country.toUpperCase()) ?? country);
  return lines;
};

export const paperFor = (country: string | null): PaperSize => (country && LETTER_COUNTRIES.has(country.toUpperCase()) ? 'Letter' : 'A4');

interface Writer {
  t: Translate<typeof en>;
  formats: LocaleFormats;
  money: (minor: number) => string;
}

const discountOf = (line: InvoiceLine, { formats, money }: Writer): string | null => {
  if (line.discount_amount === 0) return null;
  const amount = money(-line.discount_amount);
  return line.discount && 'percent_off' in line.discount ? `${amount} (${formats.percent(line.discount.percent_off)})` : amount;
};

const periodText = (period: { start: string; end: string }, { t, formats }: Writer): string =>
  t('period', { start: formats.date(period.start), end: formats.date(period.end) });

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

const categoryName = (group: Pick<TaxBreakdownEntry, 'tax_category'>, { t }: Writer): string => t(`category_${group.tax_category}`);

/** Net amount, rate and VAT of each VAT group (Art. 226 (8), (10)), as billing computed them. */
const vatGroupsOf = (invoice: Invoice, writer: Writer): VatGroupView[] =>
  invoice.tax_breakdown.map((group) => ({
    category: categoryName(group, writer),
    rate: writer.formats.percent(group.tax_rate),
    netAmount: writer.money(group.taxable_amount),
    vat: writer.money(group.tax),
  }));

/** Each group that charges no normal VAT says why (Art. 226 (11), (11a)): reverse charge and intra-community supply in their legal words. */
const exemptionsOf = (invoice: Invoice, writer: Writer): string[] =>
  invoice.tax_breakdown
    .filter((group) => EXEMPT_TAX_CATEGORIES.includes(group.tax_category))
    .flatMap((group) => {
      const reason = nonBlank(group.tax_exemption_reason);
      const stated = reason ? [writer.t('exemption', { category: categoryName(group, writer), reason })] : [];
      if (group.tax_category === 'AE') return [...stated, writer.t('wording_AE')];
      if (group.tax_category === 'K') return [...stated, writer.t('wording_K')];
      return stated;
    });

/** Spaces every four characters, as IBANs are printed (ISO 13616 paper format). */
const ibanInGroups = (iban: string): string => iban.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * How to pay the amount due at finalization: the terms, the account, the reference to quote and,
 * for a EUR invoice paid by credit transfer, a payment QR code. `amount` is given by the caller:
 * the PDF states what finalization made due, the public page what is still to pay.
 */
export const paymentOf = (invoice: Invoice, amount: number, writer: Writer): PaymentView => {
  const business = invoice.business_snapshot!;
  // The ISO 11649 creditor reference goes into the QR code's structured field; invoices finalized before it have only their number.
  const reference = nonBlank(invoice.remittance_reference) ?? invoice.number!;
  const account = business.payment_account;
  const due = writer.money(amount);
  const terms = invoice.due_date ? writer.t('pay_by', { amount: due, date: writer.formats.date(invoice.due_date) }) : writer.t('pay_on_receipt', { amount: due });
  const name = nonBlank(account?.name) ?? nonBlank(business.business_name);
  const payload =
    account && name && invoice.currency === 'EUR' ? epcPayload({ name, iban: account.iban, bic: account.bic, amount, remittance: reference }) : null;
  return {
    terms,
    account: account ? { iban: ibanInGroups(account.iban), bic: account.bic, holder: nonBlank(account.name) } : null,
    reference,
    qr: payload ? { svg: qrCodeSvg(payload, writer.t('qr_caption')), caption: writer.t('qr_caption') } : null,
  };
};

/** The writer of an invoice's language: its messages and CLDR formats. */
export const writerFor = (invoice: Pick<Invoice, 'locale' | 'currency'>): Writer => {
  const locale = invoice.locale ?? DEFAULT_LOCALE;
  const formats = formatsFor(locale);
  return { t: documentMessages(locale), formats, money: (minor) => formats.money(minor, invoice.currency) };
};

/** The printed invoice of a finalized invoice, in its language; throws on a draft, which has no document. */
export const toInvoiceDocumentView = (invoice: Invoice): InvoiceDocumentView => {
  const { business_snapshot: business, customer_snapshot: customer, number } = invoice;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no document`);
  const writer = writerFor(invoice);
  const { t, formats, money } = writer;
  const lang = formats.locale;
  const lines = invoice.lines.data;
  const totals: TotalRow[] = [{ label: t('subtotal'), amount: money(invoice.subtotal) }];
  if (invoice.discount_total > 0) totals.push({ label: t('discount'), amount: money(-invoice.discount_total) });
  totals.push({ label: t('net_amount'), amount: money(invoice.taxable_amount) }, { label: t('vat_total'), amount: money(invoice.tax_total) });
  const lineViews = lines.map(
    (line): LineView => ({
      description: line.description,
      period: line.period ? t('line_period', { period: periodText(line.period, writer) }) : null,
      quantity: formats.decimal(line.quantity),
      unitPrice: money(line.unit_amount),
      discount: discountOf(line, writer),
      taxRate: formats.percent(line.tax_rate),
      amount: money(line.amount),
    }),
  );
  return {
    lang,
    labels: Object.fromEntries(LABEL_KEYS.map((key) => [key, t(key)])) as DocumentLabels,
    title: t('invoice_title', { number }),
    number,
    paper: paperFor(business.address.country),
    colors: brandColorsOf(business.brand_color),
    fields: fieldsOf(invoice, number, writer),
    seller: {
      name: nonBlank(business.business_name),
      addressLines: addressLinesOf(business.address, lang),
      vatId: nonBlank(business.tax_id),
      email: nonBlank(business.email),
    },
    billTo: {
      name: customer.name,
      addressLines: addressLinesOf(customer.address, lang),
      vatId: nonBlank(customer.tax_id),
      email: nonBlank(customer.email),
    },
    lines: lineViews,
    hasDiscounts: lines.some((line) => line.discount_amount > 0),
    hasLinePeriods: lineViews.some((line) => line.period !== null),
    totals,
    total: { label: t('total', { currency: invoice.currency }), amount: money(invoice.total) },
    vatGroups: vatGroupsOf(invoice, writer),
    exemptions: exemptionsOf(invoice, writer),
    // The PDF is what finalization issued: the amount it made due, whatever was paid since.
    payment: paymentOf(invoice, invoice.total, writer),
    paymentInstructions: nonBlank(business.payment_instructions),
    notes: nonBlank(invoice.notes),
    footer: nonBlank(invoice.footer),
  };
};
