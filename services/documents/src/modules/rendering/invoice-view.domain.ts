import addressFormatter from '@fragaria/address-formatter';
import {
  DEFAULT_LOCALE,
  EXEMPT_TAX_CATEGORIES,
  taxGroupKey,
  type Address,
  type DocumentAllowanceCharge,
  type Invoice,
  type InvoiceLine,
  type PaymentMeans,
  type TaxBreakdownEntry,
} from '@invoicing/contracts';
import { formatsFor, type LocaleFormats, type MeasureUnit, type Translate } from '@invoicing/i18n';
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

export interface PartyView {
  name: string | null;
  addressLines: string[];
  vatId: string | null;
  email: string | null;
  /** What else identifies the party: the seller's trading name and registration number, the buyer's identifier and contact. */
  details: FieldView[];
}

export interface LineView {
  description: string;
  period: string | null;
  /** The seller's item number (BT-155), under the description. */
  sku: string | null;
  /** The line's note (BT-127), under the description. */
  note: string | null;
  /** As given, with its unit where it has a name (`7.5 hours`). */
  quantity: string;
  /** Every decimal of the price (`€0.00125`). */
  unitPrice: string;
  /** "per 100" when the unit price is the price of another quantity than one (BT-149). */
  priceBase: string | null;
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

/** One way to pay (BG-16): a sentence where one is needed, and its particulars. */
export interface PaymentMeansView {
  text: string | null;
  fields: FieldView[];
}

export interface PaymentView {
  /** "Please pay €1,445.15 by Dec 20, 2026."; for a direct debit or a card, what will be debited or was paid. */
  terms: string;
  /** The party paid when it is not the seller (BG-10). */
  payee: string | null;
  /** The invoice's payment means, in order: accounts to pay into, the debit's mandate, the card. */
  means: PaymentMeansView[];
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

/** UN/ECE Recommendation 20 units a reader knows by name; the others (`C62` one, `H87` piece, …) print as the bare number. */
const UNIT_NAMES: Readonly<Record<string, MeasureUnit>> = {
  SEC: 'second',
  MIN: 'minute',
  HUR: 'hour',
  DAY: 'day',
  WEE: 'week',
  MON: 'month',
  ANN: 'year',
  GRM: 'gram',
  KGM: 'kilogram',
  MMT: 'millimeter',
  CMT: 'centimeter',
  MTR: 'meter',
  KMT: 'kilometer',
  MLT: 'milliliter',
  LTR: 'liter',
  HAR: 'hectare',
  '4L': 'megabyte',
  E34: 'gigabyte',
  E35: 'terabyte',
};

/** A decimal string without the zeros that change nothing: `"1.000"` → `"1"`. */
const canonicalDecimal = (value: string): string => (value.includes('.') ? value.replace(/\.?0+$/, '') : value);

const quantityOf = (line: InvoiceLine, { formats }: Writer): string => {
  const unit = UNIT_NAMES[line.unit_code];
  return unit ? formats.measure(line.quantity_decimal, unit) : formats.decimal(line.quantity_decimal);
};

const discountOf = (line: InvoiceLine, { formats, money }: Writer): string | null => {
  if (line.discount_amount === 0) return null;
  const amount = money(-line.discount_amount);
  return line.discount && 'percent_off' in line.discount ? `${amount} (${formats.percent(line.discount.percent_off)})` : amount;
};

const periodText = (period: { start: string; end: string }, { t, formats }: Writer): string =>
  t('period', { start: formats.date(period.start), end: formats.date(period.end) });

const lineViewOf = (line: InvoiceLine, currency: string, writer: Writer): LineView => {
  const { t, formats, money } = writer;
  const base = canonicalDecimal(line.price_base_quantity);
  const sku = nonBlank(line.sku);
  return {
    description: line.description,
    period: line.period ? t('line_period', { period: periodText(line.period, writer) }) : null,
    sku: sku ? t('line_sku', { sku }) : null,
    note: nonBlank(line.note),
    quantity: quantityOf(line, writer),
    unitPrice: formats.unitPrice(line.unit_amount_decimal, currency),
    priceBase: base === '1' ? null : t('per_base_quantity', { quantity: formats.decimal(base) }),
    discount: discountOf(line, writer),
    taxRate: formats.percent(line.tax_rate),
    amount: money(line.amount),
  };
};

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

/** Label and value rows, the empty ones left out. */
const fieldsFrom = (entries: [string, string | null | undefined][]): FieldView[] =>
  entries.flatMap(([label, value]) => (nonBlank(value) ? [{ label, value: value!.trim() }] : []));

/** "Allowance: Loyalty (5% of €1,000.00)": the reason (or its code) and, for a percentage, what it is a percentage of. */
const adjustmentRowOf = (adjustment: DocumentAllowanceCharge, kind: 'allowance' | 'charge', { t, formats, money }: Writer): TotalRow => {
  const reason = nonBlank(adjustment.reason) ?? t('reason_code', { code: adjustment.reason_code ?? '' });
  const label =
    adjustment.percent !== null && adjustment.base_amount !== null
      ? t('adjustment_of_base', { kind: t(kind), reason, percent: formats.percent(adjustment.percent), base: money(adjustment.base_amount) })
      : t('adjustment', { kind: t(kind), reason });
  return { label, amount: money(kind === 'allowance' ? -adjustment.amount : adjustment.amount) };
};

/** From the lines' total to the taxable amount and VAT (EN 16931 BG-22): line discounts, then each document allowance and charge. */
const totalsOf = (invoice: Invoice, writer: Writer): TotalRow[] => {
  const { t, money } = writer;
  const totals: TotalRow[] = [{ label: t('subtotal'), amount: money(invoice.subtotal) }];
  if (invoice.discount_total > 0) totals.push({ label: t('line_discounts'), amount: money(-invoice.discount_total) });
  for (const allowance of invoice.allowances) totals.push(adjustmentRowOf(allowance, 'allowance', writer));
  for (const charge of invoice.charges) totals.push(adjustmentRowOf(charge, 'charge', writer));
  totals.push({ label: t('net_amount'), amount: money(invoice.taxable_amount) }, { label: t('vat_total'), amount: money(invoice.tax_total) });
  return totals;
};

/** What finalization made due: the total less what was paid before the invoice was issued (BT-113, BT-115). */
const amountDueAtIssue = (invoice: Invoice): number => invoice.total - invoice.prepaid_amount;

const settlementOf = (invoice: Invoice, { t, money }: Writer): TotalRow[] =>
  invoice.prepaid_amount > 0
    ? [
        { label: t('prepaid_amount'), amount: money(-invoice.prepaid_amount) },
        { label: t('amount_payable', { currency: invoice.currency }), amount: money(amountDueAtIssue(invoice)) },
      ]
    : [];

/** "VAT in HUF: HUF 71,393.00, rate 1 EUR = 391.25 HUF" (Art. 230: the VAT in the currency of the Member State). */
const taxCurrencyOf = (invoice: Invoice, { t, formats }: Writer): string | null => {
  const { tax_currency: currency, tax_exchange_rate: rate, tax_total_in_tax_currency: amount } = invoice;
  if (!currency || !rate || amount === null) return null;
  return t('vat_in_tax_currency', { currency, amount: formats.money(amount, currency), from: invoice.currency, rate: formats.decimal(rate) });
};

const categoryName = (group: Pick<TaxBreakdownEntry, 'tax_category'>, { t }: Writer): string => t(`category_${group.tax_category}`);

/** Net amount, rate and VAT of each VAT group (Art. 226 (8), (10)), as billing computed them, allowances and charges included. */
const vatGroupsOf = (invoice: Invoice, writer: Writer): VatGroupView[] =>
  invoice.tax_breakdown.map((group) => ({
    category: categoryName(group, writer),
    rate: writer.formats.percent(group.tax_rate),
    netAmount: writer.money(group.taxable_amount),
    vat: writer.money(group.tax),
  }));

/** Article-based CEF VATEX codes: `VATEX-EU-132-1I` → "132 (1) (i)", `VATEX-EU-79-C` → "79 (c)". */
const VATEX_ARTICLE = /^VATEX-EU-(\d+)(?:-(\d+)?([A-Z]{1,2})?)?$/;

/**
 * A sentence for a CEF VATEX code the category's name does not already say: the article of
 * Directive 2006/112/EC it exempts under, or the French franchise. Null for the others (the
 * category names them: AE, IC, G, O) and for codes without a sentence here, which print as the
 * code alone.
 */
const vatexSentence = (code: string, { t }: Writer): string | null => {
  if (code === 'VATEX-FR-FRANCHISE') return t('vatex_fr_franchise');
  const article = VATEX_ARTICLE.exec(code);
  if (!article) return null;
  const [, number, paragraph, point] = article;
  return t('vatex_article', { article: `${number}${paragraph ? ` (${paragraph})` : ''}${point ? ` (${point.toLowerCase()})` : ''}` });
};

/** The distinct VATEX codes of a VAT group's lines. */
const groupCodes = (invoice: Invoice, group: TaxBreakdownEntry): string[] => {
  const key = taxGroupKey(group);
  const codes = invoice.lines.data.filter((line) => taxGroupKey(line) === key).map((line) => nonBlank(line.tax_exemption_reason_code));
  return [...new Set(codes.filter((code): code is string => code !== null))];
};

/**
 * Each group that charges no normal VAT says why (Art. 226 (11), (11a)): the reason given, else
 * the sentence of its VATEX code, with the code; reverse charge and intra-community supply also in
 * their legal words.
 */
const exemptionsOf = (invoice: Invoice, writer: Writer): string[] =>
  invoice.tax_breakdown
    .filter((group) => EXEMPT_TAX_CATEGORIES.includes(group.tax_category))
    .flatMap((group) => {
      const category = categoryName(group, writer);
      const codes = groupCodes(invoice, group);
      const reason = nonBlank(group.tax_exemption_reason);
      const sentences = codes.map((code) => vatexSentence(code, writer)).filter((sentence): sentence is string => sentence !== null);
      const stated = reason ?? (sentences.length ? sentences.join('; ') : null);
      const code = codes.join(', ');
      const line = stated
        ? code
          ? writer.t('exemption_coded', { category, reason: stated, code })
          : writer.t('exemption', { category, reason: stated })
        : code
          ? writer.t('exemption_code_only', { category, code })
          : null;
      const wording = group.tax_category === 'AE' ? [writer.t('wording_AE')] : group.tax_category === 'K' ? [writer.t('wording_K')] : [];
      return [...(line ? [line] : []), ...wording];
    });

/** Spaces every four characters, as IBANs are printed (ISO 13616 paper format). */
const ibanInGroups = (iban: string): string => iban.replace(/(.{4})(?=.)/g, '$1 ');

/**
 * The invoice's payment means (BG-16); an invoice from before they existed has its seller's
 * credit-transfer account, which is what they read as.
 */
const paymentMeansOf = (invoice: Invoice): PaymentMeans[] => {
  if (invoice.payment_means.length > 0) return invoice.payment_means;
  const account = invoice.business_snapshot?.payment_account;
  return account
    ? [{ type: 'credit_transfer', information: null, iban: account.iban, bic: account.bic, account_name: account.name, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null }]
    : [];
};

const meansViewOf = (means: PaymentMeans, { t }: Writer): PaymentMeansView => {
  const information = nonBlank(means.information);
  switch (means.type) {
    case 'credit_transfer':
      return {
        text: information,
        fields: fieldsFrom([
          [t('account_holder'), means.account_name],
          [t('iban'), means.iban ? ibanInGroups(means.iban) : null],
          [t('bic'), means.bic],
        ]),
      };
    case 'sepa_direct_debit':
      return { text: information, fields: fieldsFrom([[t('mandate_reference'), means.mandate_reference], [t('creditor_id'), means.creditor_id]]) };
    case 'card':
      return { text: information, fields: fieldsFrom([[t('card_holder'), means.card_holder]]) };
    case 'paypal':
      return { text: information ?? t('means_paypal'), fields: [] };
    case 'other':
      return { text: information, fields: [] };
  }
};

/** What the reader is asked: to pay by a date, or told what will be debited from their account or was paid by card. */
const termsOf = (invoice: Invoice, first: PaymentMeans | undefined, amount: number, { t, formats, money }: Writer): string => {
  if (amount <= 0) return t('nothing_due');
  const due = money(amount);
  if (first?.type === 'sepa_direct_debit') {
    const iban = nonBlank(first.debited_iban);
    return iban ? t('debit_terms', { amount: due, iban: ibanInGroups(iban) }) : t('debit_terms_no_iban', { amount: due });
  }
  if (first?.type === 'card') {
    const last4 = nonBlank(first.card_last4);
    return last4 ? t('card_terms', { amount: due, last4 }) : t('card_terms_no_digits', { amount: due });
  }
  return invoice.due_date ? t('pay_by', { amount: due, date: formats.date(invoice.due_date) }) : t('pay_on_receipt', { amount: due });
};

/**
 * How to pay the amount due at finalization: the terms, the payment means, the reference to quote
 * and, for a EUR invoice paid by credit transfer, a payment QR code for its first account.
 * `amount` is given by the caller: the PDF states what finalization made due, the public page what
 * is still to pay.
 */
export const paymentOf = (invoice: Invoice, amount: number, writer: Writer): PaymentView => {
  const business = invoice.business_snapshot!;
  // The ISO 11649 creditor reference goes into the QR code's structured field; invoices finalized before it have only their number.
  const reference = nonBlank(invoice.remittance_reference) ?? invoice.number!;
  const means = paymentMeansOf(invoice);
  const transfer = means.find((entry) => entry.type === 'credit_transfer' && nonBlank(entry.iban));
  const payee = nonBlank(invoice.payee?.name);
  const name = nonBlank(transfer?.account_name) ?? payee ?? nonBlank(business.business_name);
  const payload =
    transfer && name && amount > 0 && invoice.currency === 'EUR' ? epcPayload({ name, iban: transfer.iban!, bic: transfer.bic, amount, remittance: reference }) : null;
  return {
    terms: termsOf(invoice, means[0], amount, writer),
    payee,
    means: means.map((entry) => meansViewOf(entry, writer)).filter((view) => view.text !== null || view.fields.length > 0),
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

const taxRepresentativeOf = (invoice: Invoice, lang: string): PartyView | null => {
  const representative = invoice.business_snapshot?.tax_representative;
  if (!representative) return null;
  return { name: representative.name, addressLines: addressLinesOf(representative.address, lang), vatId: nonBlank(representative.tax_id), email: null, details: [] };
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
    seller: {
      name: nonBlank(business.business_name),
      addressLines: addressLinesOf(business.address, lang),
      vatId: nonBlank(business.tax_id),
      email: nonBlank(business.email),
      details: fieldsFrom([
        [t('trading_name'), business.trading_name],
        [t('registration_id'), business.registration_id],
      ]),
    },
    billTo: {
      name: customer.name,
      addressLines: addressLinesOf(customer.address, lang),
      vatId: nonBlank(customer.tax_id),
      email: nonBlank(customer.email),
      details: fieldsFrom([
        [t('customer_identifier'), customer.identifier],
        [t('contact'), customer.contact_name],
      ]),
    },
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
  };
};
