import addressFormatter from '@fragaria/address-formatter';
import type { Address, Invoice, InvoiceLine } from '@invoicing/contracts';
import { formatDate, formatMoney, formatPercent, formatQuantity } from './money.domain.ts';

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

const countryNames = new Intl.DisplayNames('en', { type: 'region', fallback: 'code' });

export interface PartyView {
  name: string | null;
  addressLines: string[];
  taxId: string | null;
  email: string | null;
}

export interface LineView {
  description: string;
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

/**
 * Everything the printed invoice shows, already formatted. It comes only from what finalization
 * froze (snapshots, number, dates, lines, totals, texts), never from the status, payments or the
 * public link, which change later: the same invoice always gives the same document.
 */
export interface InvoiceDocumentView {
  number: string;
  currency: string;
  issueDate: string;
  dueDate: string | null;
  paper: PaperSize;
  colors: BrandColors;
  seller: PartyView;
  billTo: PartyView;
  lines: LineView[];
  hasDiscounts: boolean;
  totals: TotalRow[];
  total: TotalRow;
  paymentInstructions: string | null;
  /** ISO 11649 creditor reference to quote with the transfer (issue #21); null for invoices finalized before it. */
  remittanceReference: string | null;
  notes: string | null;
  footer: string | null;
}

const nonBlank = (value: string | null | undefined): string | null => (value && value.trim() !== '' ? value.trim() : null);

/**
 * The address as the post of its country expects it (OpenCage's per-country templates, through
 * `@fragaria/address-formatter`): "80331 München" in Germany, "London / SW1A 2AA" in Britain,
 * "Springfield, IL 62701" in the US. `line2` (an apartment, c/o) follows the street line; the
 * country's name ends the address.
 */
export const addressLinesOf = (address: Address): string[] => {
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
  if (country) lines.push(countryNames.of(country.toUpperCase()) ?? country);
  return lines;
};

export const paperFor = (country: string | null): PaperSize => (country && LETTER_COUNTRIES.has(country.toUpperCase()) ? 'Letter' : 'A4');

const discountOf = (line: InvoiceLine, currency: string): string | null => {
  if (line.discount_amount === 0) return null;
  const amount = formatMoney(-line.discount_amount, currency);
  return line.discount && 'percent_off' in line.discount ? `${amount} (${formatPercent(line.discount.percent_off)})` : amount;
};

/** Tax per rate, in ascending rate order, summed from the lines (each line's tax is rounded on its own). */
const taxRowsOf = (lines: readonly InvoiceLine[], currency: string, taxTotal: number): TotalRow[] => {
  const byRate = new Map<number, number>();
  for (const line of lines) byRate.set(line.tax_rate, (byRate.get(line.tax_rate) ?? 0) + line.tax);
  const rows = [...byRate.entries()]
    .sort(([a], [b]) => a - b)
    .map(([rate, tax]) => ({ label: `Tax ${formatPercent(rate)}`, amount: formatMoney(tax, currency) }));
  return rows.length > 1 ? [...rows, { label: 'Total tax', amount: formatMoney(taxTotal, currency) }] : rows;
};

/** The printed invoice of a finalized invoice; throws on a draft, which has no document. */
export const toInvoiceDocumentView = (invoice: Invoice): InvoiceDocumentView => {
  const { business_snapshot: business, customer_snapshot: customer, number } = invoice;
  if (number === null || business === null || customer === null) throw new Error(`Invoice ${invoice.id} is a draft and has no document`);
  const currency = invoice.currency;
  const money = (minor: number) => formatMoney(minor, currency);
  const lines = invoice.lines.data;
  const totals: TotalRow[] = [{ label: 'Subtotal', amount: money(invoice.subtotal) }];
  if (invoice.discount_total > 0) {
    totals.push({ label: 'Discount', amount: money(-invoice.discount_total) }, { label: 'Taxable amount', amount: money(invoice.taxable_amount) });
  }
  totals.push(...taxRowsOf(lines, currency, invoice.tax_total));
  return {
    number,
    currency,
    issueDate: formatDate(invoice.issue_date),
    dueDate: invoice.due_date ? formatDate(invoice.due_date) : null,
    paper: paperFor(business.address.country),
    colors: brandColorsOf(business.brand_color),
    seller: {
      name: nonBlank(business.business_name),
      addressLines: addressLinesOf(business.address),
      taxId: nonBlank(business.tax_id),
      email: nonBlank(business.email),
    },
    billTo: {
      name: customer.name,
      addressLines: addressLinesOf(customer.address),
      taxId: nonBlank(customer.tax_id),
      email: nonBlank(customer.email),
    },
    lines: lines.map((line) => ({
      description: line.description,
      quantity: formatQuantity(line.quantity),
      unitPrice: money(line.unit_amount),
      discount: discountOf(line, currency),
      taxRate: formatPercent(line.tax_rate),
      amount: money(line.amount),
    })),
    hasDiscounts: lines.some((line) => line.discount_amount > 0),
    totals,
    total: { label: `Total (${currency})`, amount: money(invoice.total) },
    paymentInstructions: nonBlank(business.payment_instructions),
    // Issue #21 (payments): printed in the payment section.
    remittanceReference: nonBlank(invoice.remittance_reference),
    notes: nonBlank(invoice.notes),
    footer: nonBlank(invoice.footer),
  };
};
