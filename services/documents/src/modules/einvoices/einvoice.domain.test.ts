import { createHash } from 'node:crypto';
import type { Invoice, InvoiceAttachment } from '@invoicing/contracts';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { supportingFiles, GLN, GTIN } from '../../../test/support/einvoices.ts';
import { validateEinvoices } from '../../../test/support/einvoice-validator.ts';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { elementsAt, parseXml, textAt, textsAt } from '../../../test/support/xml-query.ts';
import { toEInvoice, type EInvoiceAttachment } from './einvoice.domain.ts';
import { einvoiceProblems } from './einvoice-readiness.domain.ts';
import { EXPORT_KINDS } from './invoice-export.entity.ts';
import { renderExport } from './invoice-export.service.ts';

let files: EInvoiceAttachment[];
/** Billing's supporting documents, by attachment id: the in-memory stand-in for the loader that fetches them from billing. */
let stored: Map<string, Buffer>;

beforeAll(async () => {
  files = await supportingFiles();
  stored = new Map(files.map((file) => [file.id, file.content]));
});

const listed = (file: EInvoiceAttachment): InvoiceAttachment => ({
  id: file.id,
  object: 'invoice_attachment',
  livemode: true,
  filename: file.filename,
  content_type: file.contentType as InvoiceAttachment['content_type'],
  size: file.content.length,
  sha256: createHash('sha256').update(file.content).digest('hex'),
  description: file.description,
});

/**
 * A finalized invoice as billing's API returns it with every EN 16931 term beyond the first set:
 * 7.5 hours at 95.00 (19 %) and an exempt course with only a VATEX code; 5 % off the hours
 * (35.63) and 15.00 freight, both at 19 %. 19 %: 712.50 − 35.63 + 15.00 = 691.87, VAT 131.46;
 * exempt: 1200.00. Total 2023.33, 23.33 prepaid, 2000.00 due; VAT in HUF at 395.5: 51992.43.
 */
const richInvoice = (): Invoice => {
  const base = makeInvoice({
    lineInputs: [
      { description: 'Consulting hours', quantity: 8, unit_amount: 9_500, tax_rate: 19, unit_code: 'HUR' },
      { description: 'Vocational training course', unit_amount: 120_000, tax_rate: 0, tax_category: 'E' },
    ],
  });
  const [hours, course] = base.lines.data as [Invoice['lines']['data'][number], Invoice['lines']['data'][number]];
  return {
    ...base,
    lines: {
      object: 'list',
      data: [
        { ...hours, quantity: 8, quantity_decimal: '7.5', amount: 71_250, sku: 'CONS-01', standard_id: GTIN, standard_id_scheme: '0160', note: 'On site in Köln' },
        { ...course, tax_exemption_reason_code: 'VATEX-EU-132-1I' },
      ],
    },
    subtotal: 191_250,
    discount_total: 0,
    allowances: [{ amount: 3_563, percent: 5, base_amount: 71_250, reason: 'Loyalty discount', reason_code: '95', tax_category: 'S', tax_rate: 19 }],
    charges: [{ amount: 1_500, percent: null, base_amount: null, reason: 'Freight', reason_code: 'FC', tax_category: 'S', tax_rate: 19 }],
    allowance_total: 3_563,
    charge_total: 1_500,
    taxable_amount: 189_187,
    tax_breakdown: [
      { tax_category: 'S', tax_rate: 19, taxable_amount: 69_187, tax: 13_146, tax_exemption_reason: null },
      { tax_category: 'E', tax_rate: 0, taxable_amount: 120_000, tax: 0, tax_exemption_reason: null },
    ],
    tax_total: 13_146,
    total: 202_333,
    prepaid_amount: 2_333,
    amount_due: 200_000,
    amount_remaining: 200_000,
    tax_currency: 'HUF',
    tax_exchange_rate: '395.5',
    tax_total_in_tax_currency: 5_199_243,
    payment_means: [
      {
        type: 'sepa_direct_debit',
        information: 'SEPA direct debit',
        iban: null,
        bic: null,
        account_name: null,
        mandate_reference: 'MANDATE-0042',
        creditor_id: 'DE98ZZZ09999999999',
        debited_iban: 'DE75512108001245126199',
        card_last4: null,
        card_holder: null,
      },
    ],
    payee: { name: 'Factoring Bank AG', identifier: 'PAYEE-7', legal_registration_id: 'HRB 99999' },
    preceding_invoice: { number: 'INV/2026/0001', issue_date: '2026-10-01' },
    attachments: files.map(listed),
    business_snapshot: {
      ...base.business_snapshot!,
      trading_name: 'Acme Digital',
      registration_id: '123456789',
      registration_id_scheme: '0060',
      legal_info: 'Amtsgericht Köln HRB 12345',
      tax_representative: {
        name: 'Steuervertretung GmbH',
        tax_id: 'DE111222333',
        address: { line1: 'Zeil 10', line2: null, city: 'Frankfurt am Main', state: null, postal_code: '60313', country: 'DE' },
      },
    },
    customer_snapshot: { ...base.customer_snapshot!, identifier: GLN, identifier_scheme: '0088', contact_name: 'Erika Mustermann' },
  };
};

const printedPdf = async (): Promise<Buffer> => {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]);
  pdf.setCreationDate(new Date('2026-11-20T00:00:00Z'));
  pdf.setModificationDate(new Date('2026-11-20T00:00:00Z'));
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
};

describe('toEInvoice: the Invoice contract’s EN 16931 terms beyond the first set', () => {
  it('reads every new term from the finalized invoice and its snapshots', () => {
    const sut = toEInvoice(richInvoice(), stored);
    expect(sut.lines[0]).toMatchObject({ quantity: '7.5', unitAmount: '9500', priceBaseQuantity: '1', subtotal: 71_250, netAmount: 71_250, sellerItemId: 'CONS-01', standardItemId: { value: GTIN, scheme: '0160' }, note: 'On site in Köln' });
    expect(sut.taxGroups.map((group) => [group.category, group.taxableAmount, group.exemptionReason, group.exemptionReasonCode])).toEqual([
      ['S', 69_187, null, null],
      ['E', 120_000, null, 'VATEX-EU-132-1I'],
    ]);
    expect(sut.allowances).toEqual([{ amount: 3_563, baseAmount: 71_250, percent: 5, reason: 'Loyalty discount', reasonCode: '95', taxCategory: 'S', taxRate: 19 }]);
    expect(sut.charges).toEqual([{ amount: 1_500, baseAmount: null, percent: null, reason: 'Freight', reasonCode: 'FC', taxCategory: 'S', taxRate: 19 }]);
    expect(sut.totals).toEqual({ lineNetTotal: 191_250, allowanceTotal: 3_563, chargeTotal: 1_500, taxExclusive: 189_187, taxTotal: 13_146, total: 202_333, prepaid: 2_333, amountDue: 200_000 });
    expect(sut.taxCurrency).toEqual({ code: 'HUF', taxTotal: 5_199_243 });
    expect(sut.paymentMeans).toEqual([
      { code: '59', information: 'SEPA direct debit', account: null, directDebit: { mandateReference: 'MANDATE-0042', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE75512108001245126199' }, card: null },
    ]);
    expect(sut.payee).toEqual({ name: 'Factoring Bank AG', identifier: 'PAYEE-7', legalRegistrationId: 'HRB 99999' });
    expect(sut.taxRepresentative).toMatchObject({ name: 'Steuervertretung GmbH', vatId: 'DE111222333' });
    expect(sut.precedingInvoice).toEqual({ number: 'INV/2026/0001', issueDate: '2026-10-01' });
    expect(sut.seller).toMatchObject({ tradingName: 'Acme Digital', legalRegistrationId: { value: '123456789', scheme: '0060' }, legalInfo: 'Amtsgericht Köln HRB 12345' });
    expect(sut.buyer).toMatchObject({ identifier: { value: GLN, scheme: '0088' }, contactName: 'Erika Mustermann' });
    expect(sut.attachments.map(({ id, filename, contentType, description, content }) => ({ id, filename, contentType, description, size: content.length }))).toEqual(
      files.map(({ id, filename, contentType, description, content }) => ({ id, filename, contentType, description, size: content.length })),
    );
  });

  it('takes the account’s transfer account when the invoice has no payment means of its own (invoices from before)', () => {
    const sut = toEInvoice(makeInvoice());
    expect(sut.paymentMeans).toEqual([{ code: '58', information: null, account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Acme Design Studio' }, directDebit: null, card: null }]);
    expect(sut.totals.amountDue).toBe(sut.totals.total);
  });

  it('refuses an invoice whose listed supporting document has no content', () => {
    expect(() => toEInvoice(richInvoice())).toThrow(/att_timesheet without its content/);
  });
});

const OCTOBER = { start: '2026-10-01', end: '2026-10-31' };

/**
 * A finalized invoice for October's services, as billing answers it: finalization left the
 * delivery date empty because a service period says when (freezeDraft), and each line carries its period.
 */
const octoberInvoice = (): Invoice => {
  const base = makeInvoice({ delivery_date: null, service_period: OCTOBER });
  const [workshop, brochures, travel] = base.lines.data as [Invoice['lines']['data'][number], Invoice['lines']['data'][number], Invoice['lines']['data'][number]];
  return {
    ...base,
    lines: { object: 'list', data: [{ ...workshop, period: { start: '2026-10-05', end: '2026-10-06' } }, { ...brochures, period: OCTOBER }, travel] },
  };
};

describe('toEInvoice: delivery date (BT-72), invoicing period (BG-14) and line periods (BG-26)', () => {
  it('states the service period and no delivery date when finalization left the delivery date empty for it', () => {
    const sut = toEInvoice(octoberInvoice());
    expect(sut.deliveryDate).toBeNull();
    expect(sut.invoicePeriod).toEqual(OCTOBER);
    expect(sut.lines.map((line) => line.period)).toEqual([{ start: '2026-10-05', end: '2026-10-06' }, OCTOBER, null]);
  });

  it('states both when the invoice has a delivery date beside its service period', () => {
    const sut = toEInvoice(makeInvoice({ delivery_date: '2026-10-31', service_period: OCTOBER }));
    expect([sut.deliveryDate, sut.invoicePeriod]).toEqual(['2026-10-31', OCTOBER]);
  });

  it('keeps the issue date as delivery date of an invoice finalized with neither (before finalization filled it)', () => {
    const sut = toEInvoice(makeInvoice({ delivery_date: null, service_period: null }));
    expect([sut.deliveryDate, sut.invoicePeriod]).toEqual(['2026-11-20', null]);
    expect(sut.lines.every((line) => line.period === null)).toBe(true);
  });
});

describe('renderExport of an invoice for a service period', () => {
  it('writes the periods in every export, which passes the official validator with 0 fatal', async () => {
    const invoice = octoberInvoice();
    const pdf = await printedPdf();
    const documents = await Promise.all(EXPORT_KINDS.map(async (kind) => ({ name: kind, bytes: await renderExport(invoice, kind, async () => pdf), xrechnung: kind.endsWith('xrechnung') })));
    for (const kind of ['ubl-en16931', 'ubl-xrechnung'] as const) {
      const ubl = parseXml(documents.find((document) => document.name === kind)!.bytes);
      expect([textAt(ubl, 'cac:InvoicePeriod/cbc:StartDate'), textAt(ubl, 'cac:InvoicePeriod/cbc:EndDate')]).toEqual(['2026-10-01', '2026-10-31']);
      expect(elementsAt(ubl, 'cac:Delivery')).toHaveLength(0);
      expect(elementsAt(ubl, 'cac:InvoiceLine').map((line) => textsAt(line, 'cac:InvoicePeriod/cbc:StartDate'))).toEqual([['2026-10-05'], ['2026-10-01'], []]);
    }
    for (const kind of ['cii-en16931', 'cii-xrechnung'] as const) {
      const transaction = elementsAt(parseXml(documents.find((document) => document.name === kind)!.bytes), 'rsm:SupplyChainTradeTransaction')[0]!;
      expect(textAt(transaction, 'ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString')).toBe('20261031');
      expect(elementsAt(transaction, 'ram:ApplicableHeaderTradeDelivery/ram:ActualDeliverySupplyChainEvent')).toHaveLength(0);
      expect(elementsAt(transaction, 'ram:IncludedSupplyChainTradeLineItem').map((line) => textsAt(line, 'ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString'))).toEqual([
        ['20261006'],
        ['20261031'],
        [],
      ]);
    }
    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
    expect(results).toHaveLength(EXPORT_KINDS.length);
  }, 300_000);
});

describe('renderExport of an invoice with every new term', () => {
  it('embeds the supporting documents the loader gives, and every export passes the official validator with 0 fatal', async () => {
    const invoice = richInvoice();
    const pdf = await printedPdf();
    const asked: string[] = [];
    const loader = async (attachment: InvoiceAttachment) => {
      asked.push(attachment.id);
      return stored.get(attachment.id)!;
    };
    const documents = await Promise.all(
      EXPORT_KINDS.map(async (kind) => ({ name: kind, bytes: await renderExport(invoice, kind, async () => pdf, loader), xrechnung: kind.endsWith('xrechnung') })),
    );
    expect(asked).toHaveLength(EXPORT_KINDS.length * files.length);
    const ubl = parseXml(documents.find((document) => document.name === 'ubl-en16931')!.bytes);
    expect(textAt(ubl, 'cac:LegalMonetaryTotal/cbc:PayableAmount')).toBe('2000.00');
    expect(textAt(ubl, 'cac:LegalMonetaryTotal/cbc:PrepaidAmount')).toBe('23.33');
    expect(textAt(ubl, 'cac:LegalMonetaryTotal/cbc:TaxExclusiveAmount')).toBe('1891.87');
    expect(elementsAt(ubl, 'cac:TaxTotal/cbc:TaxAmount').map((amount) => `${amount.textContent} ${amount.getAttribute('currencyID')}`)).toEqual(['131.46 EUR', '51992.43 HUF']);
    expect(elementsAt(ubl, 'cac:AdditionalDocumentReference/cac:Attachment/cbc:EmbeddedDocumentBinaryObject').map((binary) => binary.getAttribute('filename'))).toEqual(files.map((file) => file.filename));
    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
  }, 300_000);

  it('refuses to embed bytes that are not the file the invoice lists, and refuses without a loader', async () => {
    const invoice = richInvoice();
    const tampered = async (attachment: InvoiceAttachment) => Buffer.concat([stored.get(attachment.id)!, Buffer.from('x')]);
    await expect(renderExport(invoice, 'ubl-en16931', async () => Buffer.alloc(0), tampered)).rejects.toThrow(/is not the file the invoice lists/);
    await expect(renderExport(invoice, 'ubl-en16931', async () => Buffer.alloc(0))).rejects.toThrow(/no attachment loader/);
  });
});

describe('einvoiceProblems: billing’s readiness and what the export asks beyond it', () => {
  const withMeans = (means: Partial<Invoice['payment_means'][number]> & Pick<Invoice['payment_means'][number], 'type'>): Invoice =>
    makeInvoice({
      payment_means: [
        { information: null, iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null, ...means },
      ],
    });

  it('asks XRechnung’s creditor identifier and debited account of a direct debit, and the card’s last digits of a card payment', () => {
    expect(einvoiceProblems(withMeans({ type: 'sepa_direct_debit', mandate_reference: 'M-1' }), 'xrechnung').map((problem) => problem.path)).toEqual([
      'payment_means.0.creditor_id',
      'payment_means.0.debited_iban',
    ]);
    expect(einvoiceProblems(withMeans({ type: 'card' }), 'xrechnung')).toEqual([{ path: 'payment_means.0.card_last4', message: expect.stringContaining('BR-DE-24') }]);
    expect(einvoiceProblems(withMeans({ type: 'sepa_direct_debit' }), 'en16931')).toEqual([]);
    expect(einvoiceProblems(withMeans({ type: 'sepa_direct_debit', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE75512108001245126199' }), 'xrechnung')).toEqual([]);
  });

  it('takes the service period of an intra-community supply for its delivery date (BR-IC-11)', () => {
    const supply = makeInvoice({ delivery_date: null, lineInputs: [{ description: 'Maintenance contract', unit_amount: 75_000, tax_category: 'K', tax_exemption_reason: 'Intra-community supply' }] });
    const foreignBuyer = { ...supply.customer_snapshot!, tax_id: 'FR12345678901', address: { ...supply.customer_snapshot!.address, country: 'FR' } };
    expect(einvoiceProblems({ ...supply, customer_snapshot: foreignBuyer }, 'xrechnung').map((problem) => problem.path)).toEqual(['delivery_date']);
    expect(einvoiceProblems({ ...supply, customer_snapshot: foreignBuyer, service_period: OCTOBER }, 'xrechnung')).toEqual([]);
  });

  it('needs no due date or payment terms when the prepaid amount leaves nothing due (BR-CO-25)', () => {
    const invoice = makeInvoice({ due_date: null, footer: null });
    expect(einvoiceProblems(invoice, 'en16931').map((problem) => problem.path)).toEqual(['due_date']);
    expect(einvoiceProblems({ ...invoice, prepaid_amount: invoice.total }, 'en16931')).toEqual([]);
  });
});
