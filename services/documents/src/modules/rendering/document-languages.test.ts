import type { Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRenderer } from '../../../test/harness.ts';
import { makeInvoice, makeRichInvoice } from '../../../test/support/invoices.ts';
import { pdfInfo, pdfPagesAsPng, pdfText, pdfWords } from '../../../test/support/pdf-text.ts';
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
      { description: 'Beratung Projekt Rechnungseingang (Konzeption, Workshops und Abstimmung mit den Fachämtern)', quantity: 2, unit_amount: 45_000, tax_rate: 19, discount: { percent_off: 10 } },
      { description: 'Fachbuch', quantity: 3, unit_amount: 2_990, tax_rate: 7 },
      { description: 'Schulung', unit_amount: 20_000, tax_category: 'E', tax_exemption_reason: 'Art. 132 (1) (i) MwStSystRL' },
      { description: 'Wartung', unit_amount: 50_000, tax_category: 'AE', tax_exemption_reason: 'Reverse charge' },
      { description: 'Maschine', unit_amount: 30_000, tax_category: 'K', tax_exemption_reason: 'Intra-community supply' },
    ],
  });
  return {
    ...invoice,
    // The street again without its hyphens, to measure how wide a hyphen is set.
    notes: 'Haltestelle Willi Becker Allee',
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
  let pages: string[];
  let pdf: Buffer;
  const t = documentMessages(locale);

  beforeAll(async () => {
    pdf = (await printer.print(legalInvoice(locale))).bytes;
    const raw = await pdfText(pdf);
    text = words(raw);
    pages = raw.split('\f').map(words);
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

  it('keeps the reasons of the exempt groups together on one page', () => {
    const page = pages.find((each) => each.includes(words(t('exemption', { category: t('category_E'), reason: 'Art. 132 (1) (i) MwStSystRL' }))));
    expect(page).toBeDefined();
    expect(page).toContain(words(t('wording_AE')));
    expect(page).toContain(words(t('wording_K')));
  });

  it('sets a hyphen as narrow as the typeface draws it in text, not as wide as a tabular figure', async () => {
    const placed = await pdfWords(pdf);
    const width = (word: string) => {
      const found = placed.find((each) => each.text === word);
      expect(found, word).toBeDefined();
      return found!.xMax - found!.xMin;
    };
    // The address's "Willi-Becker-Allee" and the note's "Willi Becker Allee", both 9.5 pt Inter.
    const hyphen = (width('Willi-Becker-Allee') - width('Willi') - width('Becker') - width('Allee')) / 2;
    // Inter's hyphen is about a third of an em; with tabular figures (a figure's width) it is over half.
    expect(hyphen).toBeGreaterThan(0);
    expect(hyphen).toBeLessThan(9.5 / 2);
  });

  it('starts every value of the payment account in one column, however long the labels are in its language', async () => {
    const placed = await pdfWords(pdf);
    const reference = placed.find((word) => word.text === 'RF73INV20260042')!;
    const holder = placed.filter((word) => word.text === 'Acme' && word.page === reference.page).at(-1)!;
    const iban = placed.find((word) => word.text === 'DE89')!;
    const bic = placed.find((word) => word.text === 'COBADEFFXXX')!;
    for (const value of [holder, iban, bic]) expect(value.xMin).toBeCloseTo(reference.xMin, 1);
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

/** The figures of `makeRichInvoice` as each language writes them. */
const RICH = {
  'en-GB': {
    lines: ['Consulting 7.5 hours €120.00 – 19% €900.00', 'Cloud storage (GB-hours) 2,500 €0.00125 – 19% €3.13', 'Standard screws M4 1,500 €8.50 -€12.75 (10%) 19% €114.75'],
    perHundred: 'per 100',
    allowance: ['Allowance: Framework agreement', '-€45.00', '(5% of €900.00)'],
    rows: ['Subtotal €1,230.63', 'Line discounts -€12.75', 'Charge: Freight €15.00', 'Net amount €1,187.88', 'Total VAT €187.70', 'Total (EUR) €1,375.58', 'Prepaid amount -€500.00', 'Amount due (EUR) €875.58', 'Taxable 19% €987.88 €187.70'],
    taxCurrency: 'VAT in HUF: HUF 73,437.63, rate 1 EUR = 391.25 HUF',
    exemption: 'Exempt from VAT: Exempt under Article 132 (1) (i) of Council Directive 2006/112/EC (VATEX-EU-132-1I)',
    terms: 'Please pay €875.58 by 20 Dec 2026.',
    preceding: 'Refers to invoice INV/2026/0017 of 15 Oct 2026.',
  },
  'de-DE': {
    lines: ['Consulting 7,5 Stunden 120,00 € – 19 % 900,00 €', 'Cloud storage (GB-hours) 2.500 0,00125 € – 19 % 3,13 €', 'Standard screws M4 1.500 8,50 € -12,75 € (10 %) 19 % 114,75 €'],
    perHundred: 'je 100',
    allowance: ['Nachlass: Framework agreement', '-45,00 €', '(5 % von 900,00 €)'],
    rows: ['Zwischensumme 1.230,63 €', 'Positionsrabatte -12,75 €', 'Zuschlag: Freight 15,00 €', 'Nettobetrag 1.187,88 €', 'Umsatzsteuer gesamt 187,70 €', 'Gesamtbetrag (EUR) 1.375,58 €', 'Vorauszahlung -500,00 €', 'Zahlbetrag (EUR) 875,58 €', 'Steuerpflichtig 19 % 987,88 € 187,70 €'],
    taxCurrency: 'Umsatzsteuer in HUF: 73.437,63 HUF, Kurs 1 EUR = 391,25',
    exemption: 'Steuerbefreit: Steuerbefreit nach Artikel 132 (1) (i) der Richtlinie 2006/112/EG (VATEX-EU-132-1I)',
    terms: 'Bitte überweisen Sie 875,58 € bis zum 20.12.2026.',
    preceding: 'Bezieht sich auf Rechnung INV/2026/0017 vom 15.10.2026.',
  },
} as const;

describe.each(Object.entries(RICH))('the PDF of an invoice with every EN 16931 term a reader needs, in %s', (locale, expected) => {
  let text: string;
  let pages: string[];
  let pdf: Buffer;
  const t = documentMessages(locale);

  beforeAll(async () => {
    pdf = (await printer.print(makeRichInvoice({ locale }))).bytes;
    const raw = await pdfText(pdf);
    text = words(raw);
    pages = raw.split('\f').filter((page) => page.trim() !== '');
  });

  it('prints decimal quantities, exact unit prices, the price base, item numbers and notes on their lines', () => {
    for (const line of expected.lines) expect(text).toContain(words(line));
    expect(text).toContain(expected.perHundred);
    expect(text).toContain(t('line_sku', { sku: 'CONS-01' }));
    expect(text).toContain(t('line_sku', { sku: 'SCR-M4' }));
    expect(text).toContain('On site in Köln, 3 and 4 November');
  });

  it('goes from the lines to the amount due: allowance, charge, VAT, prepaid amount, and the VAT in the tax currency', () => {
    for (const row of [...expected.rows, ...expected.allowance, expected.taxCurrency, expected.exemption, expected.terms]) expect(text).toContain(words(row));
  });

  it('names the parties, the tax representative, the preceding invoice, the payment means and the supporting documents', () => {
    for (const phrase of [
      `${t('trading_name')} Acme Studio`,
      `${t('registration_id')} HRB 12345`,
      t('tax_representative').toLocaleUpperCase(locale),
      'Fiscal Representation SARL',
      `${t('vat_id')} FR61123456789`,
      `${t('customer_identifier')} 4000001987658`,
      `${t('contact')} Erika Mustermann`,
      expected.preceding,
      `${t('payment_to')} Factoring Bank AG`,
      `${t('account_holder')} Factoring Bank AG`,
      `${t('iban')} DE89 3704 0044 0532 0130 00`,
      'For payments from Austria',
      `${t('iban')} AT61 1904 3002 3457 3201`,
      t('attachments').toLocaleUpperCase(locale),
      'timesheet-november.csv (Timesheet November)',
      'delivery-note.pdf',
      'Registered at Amtsgericht Köln, HRB 12345. Managing director: Jana Beispiel.',
    ]) {
      expect(text).toContain(words(phrase));
    }
  });

  it('keeps the totals together and ends with the legal information', () => {
    // The totals block never breaks across pages: the subtotal and the amount due are on one page.
    const totalsPage = pages.find((page) => words(page).includes(words(expected.rows[0]!)));
    expect(words(totalsPage!)).toContain(words(expected.rows[7]!));
    expect(words(totalsPage!)).toContain(words(expected.taxCurrency));
    expect(words(pages.at(-1)!)).toContain('Managing director: Jana Beispiel.');
  });

  it('prints the payment QR code for the first account, with the payee as beneficiary and the amount due after the prepayment', async () => {
    const scanned = decodeQrCodeOnPages(await pdfPagesAsPng(pdf));
    expect(scanned).toBe(['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Factoring Bank AG', 'DE89370400440532013000', 'EUR875.58', '', 'RF73INV20260042'].join('\n'));
  });
});

/** An export outside the EU beside a taxed line, and a supply outside the scope of VAT, which EN 16931 keeps on an invoice of its own (BR-O-11). */
const EXPORT_REASON = 'Ausfuhrlieferung nach § 4 Nr. 1 Buchst. a i. V. m. § 6 UStG';
const OUT_OF_SCOPE_REASON = 'Leistungsort in der Schweiz (§ 3a Abs. 2 UStG)';

describe.each(['en', 'de'])('the PDF in %s says why an export and an out-of-scope supply carry no VAT', (locale) => {
  const t = documentMessages(locale);
  const printed = async (invoice: Invoice) => words(await pdfText((await printer.print(invoice)).bytes));

  it('prints the export group (G) with its category and reason beside the taxed group', async () => {
    const text = await printed(
      makeInvoice({
        locale,
        lineInputs: [
          { description: 'Beratung', unit_amount: 10_000, tax_rate: 19 },
          { description: 'Ersatzteile', unit_amount: 40_000, tax_category: 'G', tax_exemption_reason: EXPORT_REASON },
        ],
      }),
    );
    expect(text).toContain(words(t('exemption', { category: t('category_G'), reason: EXPORT_REASON })));
    expect(text).toContain(words(`${t('category_S')} ${locale === 'de' ? '19 %' : '19%'}`));
  });

  it('prints the out-of-scope group (O) with its category and reason', async () => {
    const text = await printed(makeInvoice({ locale, lineInputs: [{ description: 'Wartung Anlage Basel', unit_amount: 80_000, tax_category: 'O', tax_exemption_reason: OUT_OF_SCOPE_REASON }] }));
    expect(text).toContain(words(t('exemption', { category: t('category_O'), reason: OUT_OF_SCOPE_REASON })));
  });
});

describe.each([
  ['en', 'Nov 18, 2026'],
  ['de', '18.11.2026'],
])('the PDF in %s of goods delivered on a day', (locale, deliveryDate) => {
  it('states the delivery date (§ 14 (4) 6. UStG) in its format, and no service period', async () => {
    const t = documentMessages(locale);
    const invoice = makeInvoice({ locale, delivery_date: '2026-11-18', service_period: null, lineInputs: [{ description: 'Ersatzteile', quantity: 4, unit_amount: 12_500, tax_rate: 19 }] });
    const text = words(await pdfText((await printer.print(invoice)).bytes));
    expect(text).toContain(`${t('delivery_date')} ${deliveryDate}`);
    expect(text).not.toContain(t('service_period'));
  });
});
