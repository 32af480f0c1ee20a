import type { Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRenderer } from '../../../test/harness.ts';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { pdfInfo, pdfPagesAsPng, pdfText } from '../../../test/support/pdf-text.ts';
import { decodeQrCodeOnPages } from '../../../test/support/qr-code.ts';
import { documentMessages } from './document-messages.ts';
import { createInvoicePrinter, type InvoicePrinter } from './invoice-printer.ts';
import type { PdfRenderer } from './pdf-renderer.ts';
import { loadTemplates } from './templates.ts';

let renderer: PdfRenderer;
let printer: InvoicePrinter;

beforeAll(async () => {
  renderer = await startTestRenderer(2);
  printer = createInvoicePrinter({ renderer }, loadTemplates());
});

afterAll(async () => {
  await renderer?.close();
});

/** A German seller's invoice with what § 14 UStG and Art. 226 ask for: several rates, exempt, reverse-charge and intra-community lines, a service period. */
const legalInvoice = (locale: string): Invoice => {
  const invoice = makeInvoice({
    locale,
    delivery_date: null,
    service_period: { start: '2026-10-01', end: '2026-10-31' },
    lineInputs: [
      { description: 'Beratung', quantity: 2, unit_amount: 45_000, tax_rate: 19, discount: { percent_off: 10 } },
      { description: 'Fachbuch', quantity: 3, unit_amount: 2_990, tax_rate: 7 },
      { description: 'Schulung', unit_amount: 20_000, tax_category: 'E', tax_exemption_reason: 'Art. 132 (1) (i) MwStSystRL' },
      { description: 'Wartung', unit_amount: 50_000, tax_category: 'AE', tax_exemption_reason: 'Reverse charge' },
      { description: 'Maschine', unit_amount: 30_000, tax_category: 'K', tax_exemption_reason: 'Intra-community supply' },
    ],
  });
  return {
    ...invoice,
    // A subscription's line states its own period (BG-26).
    lines: { ...invoice.lines, data: invoice.lines.data.map((line, index) => (index === 0 ? { ...line, period: { start: '2026-10-01', end: '2026-10-31' } } : line)) },
    customer_snapshot: {
      ...invoice.customer_snapshot!,
      name: 'Landeshauptstadt Düsseldorf – Amt für Informations- und Kommunikationstechnik, Zentrale Rechnungseingangsstelle',
      address: { line1: 'Willi-Becker-Allee 10 (Technisches Rathaus), Eingang B', line2: 'Postfach 10 11 20', city: 'Düsseldorf', state: null, postal_code: '40227', country: 'DE' },
    },
  };
};

/** pdftotext keeps the layout's runs of spaces and CLDR's no-break spaces: compare words, not spacing. */
const words = (text: string) => text.replace(/[\s\u00a0\u202f]+/g, ' ');

// Net 189,970 + VAT 16,018 (19 % of 81,000 and 7 % of 8,970) = 205,988 cents. Dates as CLDR writes them.
describe.each([
  ['en', 'Nov 20, 2026', 'Dec 20, 2026', 'Oct 1, 2026 – Oct 31, 2026', '€2,059.88', '€153.90', '19%'],
  ['de', '20.11.2026', '20.12.2026', '01.10.2026 – 31.10.2026', '2.059,88 €', '153,90 €', '19 %'],
  ['fr', '20 nov. 2026', '20 déc. 2026', 'du 1 oct. 2026 au 31 oct. 2026', '2 059,88 €', '153,90 €', '19 %'],
  ['es', '20 nov 2026', '20 dic 2026', 'del 1 oct 2026 al 31 oct 2026', '2059,88 €', '153,90 €', '19 %'],
  ['it', '20 nov 2026', '20 dic 2026', '1 ott 2026 – 31 ott 2026', '2059,88 €', '153,90 €', '19%'],
  ['nl', '20 nov 2026', '20 dec 2026', '1 okt 2026 t/m 31 okt 2026', '€ 2.059,88', '€ 153,90', '19%'],
])('the PDF in %s', (locale, issueDate, dueDate, servicePeriod, total, vat19, rate19) => {
  let text: string;
  let pdf: Buffer;
  const t = documentMessages(locale);

  beforeAll(async () => {
    pdf = (await printer.print(legalInvoice(locale))).bytes;
    text = words(await pdfText(pdf));
  });

  it('writes numbers, money and dates as its readers do', () => {
    expect(text).toContain(`${t('issue_date')} ${issueDate}`);
    expect(text).toContain(`${t('due_date')} ${dueDate}`);
    expect(text).toContain(words(`${t('service_period')} ${servicePeriod}`));
    expect(text).toContain(words(t('line_period', { period: servicePeriod })));
    expect(text).toContain(words(`${t('total', { currency: 'EUR' })} ${total}`));
    expect(text).toContain(words(`${t('category_S')} ${rate19}`));
    expect(text).toContain(words(vat19));
  });

  it('holds every element the law asks for, in its words', () => {
    for (const phrase of [
      t('invoice'),
      `${t('invoice_number')} INV/2026/0042`,
      `${t('vat_id')} DE123456789`,
      `${t('vat_id')} DE987654321`,
      `${t('buyer_reference')} 04011000-12345-34`,
      `${t('purchase_order')} PO-7781`,
      // A caption printed in capitals (CSS), as pdftotext extracts it.
      t('vat_summary').toLocaleUpperCase(locale),
      t('category_E'),
      t('exemption', { category: t('category_E'), reason: 'Art. 132 (1) (i) MwStSystRL' }),
      t('wording_AE'),
      t('wording_K'),
      t('pay_by', { amount: total, date: dueDate }),
      `${t('iban')} DE89 3704 0044 0532 0130 00`,
      `${t('bic')} COBADEFFXXX`,
      `${t('account_holder')} Acme Design Studio`,
      `${t('payment_reference')} RF73INV20260042`,
    ]) {
      expect(text).toContain(words(phrase));
    }
  });

  it('is a tagged PDF that declares its language', async () => {
    expect((await pdfInfo(pdf)).Tagged).toBe('yes');
    expect(pdf.toString('latin1')).toContain(`/Lang (${locale})`);
  });

  it('prints a payment QR code a banking app reads as the SEPA transfer of the amount due', async () => {
    const scanned = decodeQrCodeOnPages(await pdfPagesAsPng(pdf));
    // The ISO 11649 creditor reference goes into the structured remittance field; nothing follows it.
    expect(scanned).toBe(['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Acme Design Studio', 'DE89370400440532013000', 'EUR2059.88', '', 'RF73INV20260042'].join('\n'));
  });
});
