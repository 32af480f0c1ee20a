import { createHash } from 'node:crypto';
import { PDFDocument } from 'pdf-lib';
import { beforeAll, describe, expect, it } from 'vitest';
import { allowanceCharge, creditTransfer, line, makeEInvoice, priced, richEInvoice, supportingFiles, GLN, GTIN } from '../../../test/support/einvoices.ts';
import { EINVOICE_SHAPES } from '../../../test/support/einvoice-shapes.ts';
import { validateEinvoices, type DocumentToValidate } from '../../../test/support/einvoice-validator.ts';
import { makeInvoice, makeInvoiceOfShape } from '../../../test/support/invoices.ts';
import { elementAt, elementsAt, parseXml, textAt, textsAt } from '../../../test/support/xml-query.ts';
import { writeCiiInvoice } from './cii-invoice.ts';
import { toEInvoice, type EInvoice, type EInvoiceAttachment } from './einvoice.domain.ts';
import { toFacturXPdf } from './facturx-pdf.ts';
import { writeUblInvoice } from './ubl-invoice.ts';

let files: EInvoiceAttachment[];
let rich: EInvoice;

beforeAll(async () => {
  files = await supportingFiles();
  rich = richEInvoice(files);
});

const base = () => makeEInvoice();

/** Each case changes one thing of the plain invoice (and is priced again, as billing would). */
const focusedCases = (): { name: string; einvoice: EInvoice }[] => [
  {
    name: 'several credit-transfer accounts',
    einvoice: priced({
      ...base(),
      paymentMeans: [
        { ...creditTransfer('DE89370400440532013000', 'Seller GmbH', 'COBADEFFXXX'), information: 'Commerzbank' },
        { ...creditTransfer('DE02120300000000202051', 'Seller GmbH', null), information: 'DKB' },
        creditTransfer('DE02500105170137075030'),
      ],
    }),
  },
  {
    name: 'SEPA direct debit',
    einvoice: priced({
      ...base(),
      paymentMeans: [
        {
          code: '59',
          information: 'SEPA direct debit',
          account: null,
          directDebit: { mandateReference: 'MANDATE-0042', creditorId: 'DE98ZZZ09999999999', debitedIban: 'DE75512108001245126199' },
          card: null,
        },
      ],
    }),
  },
  {
    name: 'payment card',
    einvoice: priced({ ...base(), paymentMeans: [{ code: '48', information: 'Visa', account: null, directDebit: null, card: { lastDigits: '4242', holder: 'Erika Mustermann' } }] }),
  },
  {
    name: 'PayPal',
    einvoice: priced({ ...base(), paymentMeans: [{ code: '68', information: 'PayPal to pay@seller.example', account: null, directDebit: null, card: null }] }),
  },
  {
    name: 'other payment means',
    einvoice: priced({ ...base(), paymentMeans: [{ code: '1', information: 'Cash on collection', account: null, directDebit: null, card: null }] }),
  },
  {
    name: 'allowances and charges, as amounts and as percentages',
    einvoice: priced({
      ...base(),
      lines: [line({ description: 'Design workshop', quantity: '2', unitAmount: '45000', discountPercent: 12.5 }, 1), line({ description: 'Brochures', quantity: '300', unitAmount: '125', taxRate: 7 }, 2)],
      allowances: [
        allowanceCharge({ percent: 3.5, baseAmount: 78_750 }, { reason: 'Early order', reasonCode: '95' }),
        allowanceCharge({ amount: 500 }, { reasonCode: '100', taxRate: 7 }),
      ],
      charges: [allowanceCharge({ percent: 10, baseAmount: 37_500 }, { reason: 'Express handling', reasonCode: 'FC', taxRate: 7 }), allowanceCharge({ amount: 990 }, { reason: 'Packaging' })],
    }),
  },
  { name: 'prepaid amount', einvoice: priced({ ...base(), totals: { ...base().totals, prepaid: 40_000 } }) },
  {
    name: 'decimal quantities and prices with a base quantity',
    einvoice: priced({
      ...base(),
      lines: [
        line({ description: 'Support hours', quantity: '7.5', unitCode: 'HUR', unitAmount: '0.125' }, 1),
        line({ description: 'Stickers', quantity: '1000', unitAmount: '12.5', priceBaseQuantity: '100' }, 2),
        line({ description: 'Cable', quantity: '2.75', unitCode: 'MTR', unitAmount: '1999.5' }, 3),
      ],
    }),
  },
  { name: 'VAT in a tax currency (EUR → HUF)', einvoice: priced({ ...base(), taxCurrency: { code: 'HUF', taxTotal: 8_558_790 } }) },
  {
    name: 'exempt groups with VATEX codes',
    einvoice: priced({
      ...base(),
      lines: [
        line({ description: 'Medical care', unitAmount: '20000', taxCategory: 'E', taxRate: 0, taxExemptionReasonCode: 'VATEX-EU-132-1C' }, 1),
        line({ description: 'Construction work', unitAmount: '64000', taxCategory: 'AE', taxRate: 0, taxExemptionReason: 'Reverse charge', taxExemptionReasonCode: 'VATEX-EU-AE' }, 2),
      ],
    }),
  },
  { name: 'payee', einvoice: priced({ ...base(), payee: { name: 'Factoring Bank AG', identifier: 'PAYEE-7', legalRegistrationId: 'HRB 99999' } }) },
  {
    name: 'tax representative',
    einvoice: priced({
      ...base(),
      taxRepresentative: { name: 'Steuervertretung GmbH', vatId: 'DE111222333', address: { line1: 'Zeil 10', line2: null, city: 'Frankfurt am Main', state: null, postal_code: '60313', country: 'DE' } },
    }),
  },
  { name: 'supporting documents: PDF, PNG and CSV', einvoice: priced({ ...base(), attachments: files }) },
];

/** A one-page PDF standing for the printed invoice the Factur-X wraps. */
const printedPdf = async (): Promise<Buffer> => {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]);
  pdf.setCreationDate(new Date('2026-11-20T00:00:00Z'));
  pdf.setModificationDate(new Date('2026-11-20T00:00:00Z'));
  return Buffer.from(await pdf.save({ useObjectStreams: false }));
};

describe('EN 16931 business terms beyond the first set', () => {
  it('writes the rich invoice and each focused case in UBL, CII, XRechnung (both syntaxes) and Factur-X, each with 0 fatal from the official validator', async () => {
    const pdf = await printedPdf();
    const documents: DocumentToValidate[] = [];
    for (const { name, einvoice } of [{ name: 'every term', einvoice: rich }, ...focusedCases()]) {
      documents.push(
        { name: `${name} / UBL`, bytes: writeUblInvoice(einvoice, 'en16931'), xrechnung: false },
        { name: `${name} / CII`, bytes: writeCiiInvoice(einvoice, 'en16931'), xrechnung: false },
        { name: `${name} / XRechnung UBL`, bytes: writeUblInvoice(einvoice, 'xrechnung'), xrechnung: true },
        { name: `${name} / XRechnung CII`, bytes: writeCiiInvoice(einvoice, 'xrechnung'), xrechnung: true },
        { name: `${name} / Factur-X`, bytes: await toFacturXPdf({ pdf, xml: writeCiiInvoice(einvoice, 'en16931'), at: new Date('2026-11-20T10:00:00Z') }), xrechnung: false },
      );
    }
    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
    expect(results).toHaveLength(documents.length);
  }, 900_000);

  it('states the totals (BT-106 to BT-115) and the VAT in the tax currency (BT-111) to the unit, in UBL', () => {
    const ubl = parseXml(writeUblInvoice(rich, 'en16931'));
    const total = (name: string) => textAt(ubl, `cac:LegalMonetaryTotal/cbc:${name}`);
    expect(total('LineExtensionAmount')).toBe('1913.76');
    expect(total('AllowanceTotalAmount')).toBe('45.63');
    expect(total('ChargeTotalAmount')).toBe('15.00');
    expect(total('TaxExclusiveAmount')).toBe('1883.13');
    expect(total('TaxInclusiveAmount')).toBe('2014.82');
    expect(total('PrepaidAmount')).toBe('500.00');
    expect(total('PayableAmount')).toBe('1514.82');
    expect(textAt(ubl, 'cbc:TaxCurrencyCode')).toBe('HUF');
    const [vat, vatInTaxCurrency] = elementsAt(ubl, 'cac:TaxTotal');
    expect(textAt(vat!, 'cbc:TaxAmount')).toBe('131.69');
    expect(elementAt(vatInTaxCurrency!, 'cbc:TaxAmount').getAttribute('currencyID')).toBe('HUF');
    expect(textAt(vatInTaxCurrency!, 'cbc:TaxAmount')).toBe('52083.40');
    expect(elementsAt(vatInTaxCurrency!, 'cac:TaxSubtotal')).toHaveLength(0);
    const groups = elementsAt(vat!, 'cac:TaxSubtotal').map((group) => [
      textAt(group, 'cbc:TaxableAmount'),
      textAt(group, 'cbc:TaxAmount'),
      textAt(group, 'cac:TaxCategory/cbc:ID'),
      textsAt(group, 'cac:TaxCategory/cbc:TaxExemptionReasonCode'),
      textsAt(group, 'cac:TaxCategory/cbc:TaxExemptionReason'),
    ]);
    expect(groups).toEqual([
      ['693.13', '131.69', 'S', [], []],
      ['1190.00', '0.00', 'E', ['VATEX-EU-132-1I'], ['Exempt under § 4 Nr. 21 UStG']],
    ]);
  });

  it('puts allowances, charges, lines, parties, payment means, references and attachments where UBL binds them', () => {
    const ubl = parseXml(writeUblInvoice(rich, 'en16931'));
    const allowances = elementsAt(ubl, 'cac:AllowanceCharge').map((entry) => ({
      charge: textAt(entry, 'cbc:ChargeIndicator'),
      code: textsAt(entry, 'cbc:AllowanceChargeReasonCode'),
      reason: textsAt(entry, 'cbc:AllowanceChargeReason'),
      percent: textsAt(entry, 'cbc:MultiplierFactorNumeric'),
      amount: textAt(entry, 'cbc:Amount'),
      base: textsAt(entry, 'cbc:BaseAmount'),
      category: `${textAt(entry, 'cac:TaxCategory/cbc:ID')} ${textAt(entry, 'cac:TaxCategory/cbc:Percent')}`,
    }));
    expect(allowances).toEqual([
      { charge: 'false', code: ['95'], reason: ['Loyalty discount'], percent: ['5'], amount: '35.63', base: ['712.50'], category: 'S 19' },
      { charge: 'false', code: [], reason: ['Course voucher'], percent: [], amount: '10.00', base: [], category: 'E 0' },
      { charge: 'true', code: ['FC'], reason: ['Freight'], percent: [], amount: '15.00', base: [], category: 'S 19' },
    ]);

    const [first, second, third] = elementsAt(ubl, 'cac:InvoiceLine');
    expect(textAt(first!, 'cbc:Note')).toBe('On site in Köln');
    expect(textAt(first!, 'cbc:InvoicedQuantity')).toBe('7.5');
    expect(elementAt(first!, 'cbc:InvoicedQuantity').getAttribute('unitCode')).toBe('HUR');
    expect(textAt(first!, 'cac:Item/cac:SellersItemIdentification/cbc:ID')).toBe('CONS-01');
    expect(textAt(first!, 'cac:Item/cac:StandardItemIdentification/cbc:ID')).toBe(GTIN);
    expect(elementAt(first!, 'cac:Item/cac:StandardItemIdentification/cbc:ID').getAttribute('schemeID')).toBe('0160');
    expect(textAt(second!, 'cac:Price/cbc:PriceAmount')).toBe('0.00125');
    expect(textAt(second!, 'cbc:LineExtensionAmount')).toBe('0.01');
    expect(elementsAt(second!, 'cac:Price/cbc:BaseQuantity')).toHaveLength(0);
    expect(textAt(third!, 'cbc:InvoicedQuantity')).toBe('1000');
    expect(textAt(third!, 'cac:Price/cbc:PriceAmount')).toBe('0.125');
    expect(textAt(third!, 'cac:Price/cbc:BaseQuantity')).toBe('100');
    expect(textAt(third!, 'cbc:LineExtensionAmount')).toBe('1.25');

    const seller = elementAt(ubl, 'cac:AccountingSupplierParty/cac:Party');
    expect(textAt(seller, 'cac:PartyName/cbc:Name')).toBe('Seller Digital');
    expect(textAt(seller, 'cac:PartyLegalEntity/cbc:CompanyID')).toBe('123456789');
    expect(elementAt(seller, 'cac:PartyLegalEntity/cbc:CompanyID').getAttribute('schemeID')).toBe('0060');
    expect(textAt(seller, 'cac:PartyLegalEntity/cbc:CompanyLegalForm')).toBe('Geschäftsführer: Max Muster; Amtsgericht Köln HRB 12345');
    const buyer = elementAt(ubl, 'cac:AccountingCustomerParty/cac:Party');
    expect(textAt(buyer, 'cac:PartyIdentification/cbc:ID')).toBe(GLN);
    expect(elementAt(buyer, 'cac:PartyIdentification/cbc:ID').getAttribute('schemeID')).toBe('0088');
    expect(textAt(buyer, 'cac:Contact/cbc:Name')).toBe('Erika Mustermann');
    const payee = elementAt(ubl, 'cac:PayeeParty');
    expect([textAt(payee, 'cac:PartyName/cbc:Name'), textAt(payee, 'cac:PartyIdentification/cbc:ID'), textAt(payee, 'cac:PartyLegalEntity/cbc:CompanyID')]).toEqual([
      'Factoring Bank AG',
      'PAYEE-7',
      'HRB 99999',
    ]);
    const representative = elementAt(ubl, 'cac:TaxRepresentativeParty');
    expect(textAt(representative, 'cac:PartyName/cbc:Name')).toBe('Steuervertretung GmbH');
    expect(textAt(representative, 'cac:PartyTaxScheme/cbc:CompanyID')).toBe('DE111222333');
    expect(textAt(representative, 'cac:PostalAddress/cac:Country/cbc:IdentificationCode')).toBe('DE');

    const means = elementsAt(ubl, 'cac:PaymentMeans');
    expect(means.map((entry) => [textAt(entry, 'cbc:PaymentMeansCode'), elementAt(entry, 'cbc:PaymentMeansCode').getAttribute('name'), textAt(entry, 'cac:PayeeFinancialAccount/cbc:ID')])).toEqual([
      ['58', 'SEPA credit transfer', 'DE89370400440532013000'],
      ['58', null, 'DE02120300000000202051'],
    ]);
    expect(textAt(ubl, 'cac:BillingReference/cac:InvoiceDocumentReference/cbc:ID')).toBe('INV-2026-0001');
    expect(textAt(ubl, 'cac:BillingReference/cac:InvoiceDocumentReference/cbc:IssueDate')).toBe('2026-10-01');

    const documents = elementsAt(ubl, 'cac:AdditionalDocumentReference');
    expect(documents.map((document) => textAt(document, 'cbc:ID'))).toEqual(['att_timesheet', 'att_photo', 'att_usage']);
    expect(textsAt(documents[0]!, 'cbc:DocumentDescription')).toEqual(['Timesheet']);
    for (const [index, file] of files.entries()) {
      const binary = elementAt(documents[index]!, 'cac:Attachment/cbc:EmbeddedDocumentBinaryObject');
      expect(binary.getAttribute('mimeCode')).toBe(file.contentType);
      expect(binary.getAttribute('filename')).toBe(file.filename);
      expect(Buffer.from(binary.textContent ?? '', 'base64').equals(file.content)).toBe(true);
    }
  });

  it('states the same terms where CII binds them, with a currency only on the VAT totals (CII-DT-031)', () => {
    const cii = parseXml(writeCiiInvoice(rich, 'en16931'));
    const transaction = elementAt(cii, 'rsm:SupplyChainTradeTransaction');
    const settlement = elementAt(transaction, 'ram:ApplicableHeaderTradeSettlement');
    const sum = (name: string) => textAt(settlement, `ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:${name}`);
    expect(sum('LineTotalAmount')).toBe('1913.76');
    expect(sum('AllowanceTotalAmount')).toBe('45.63');
    expect(sum('ChargeTotalAmount')).toBe('15.00');
    expect(sum('TaxBasisTotalAmount')).toBe('1883.13');
    expect(sum('GrandTotalAmount')).toBe('2014.82');
    expect(sum('TotalPrepaidAmount')).toBe('500.00');
    expect(sum('DuePayableAmount')).toBe('1514.82');
    const vatTotals = elementsAt(settlement, 'ram:SpecifiedTradeSettlementHeaderMonetarySummation/ram:TaxTotalAmount').map((amount) => `${amount.textContent} ${amount.getAttribute('currencyID')}`);
    expect(vatTotals).toEqual(['131.69 EUR', '52083.40 HUF']);
    expect(textAt(settlement, 'ram:TaxCurrencyCode')).toBe('HUF');
    const withCurrency = elementsAt(settlement, 'ram:SpecifiedTradeAllowanceCharge/ram:ActualAmount').filter((amount) => amount.hasAttribute('currencyID'));
    expect(withCurrency).toHaveLength(0);

    const allowances = elementsAt(settlement, 'ram:SpecifiedTradeAllowanceCharge').map((entry) => [
      textAt(entry, 'ram:ChargeIndicator/udt:Indicator'),
      textsAt(entry, 'ram:CalculationPercent').join(),
      textsAt(entry, 'ram:BasisAmount').join(),
      textAt(entry, 'ram:ActualAmount'),
      textsAt(entry, 'ram:ReasonCode').join(),
      textsAt(entry, 'ram:Reason').join(),
      textAt(entry, 'ram:CategoryTradeTax/ram:CategoryCode'),
    ]);
    expect(allowances).toEqual([
      ['false', '5', '712.50', '35.63', '95', 'Loyalty discount', 'S'],
      ['false', '', '', '10.00', '', 'Course voucher', 'E'],
      ['true', '', '', '15.00', 'FC', 'Freight', 'S'],
    ]);
    const exempt = elementsAt(settlement, 'ram:ApplicableTradeTax')[1]!;
    expect([textAt(exempt, 'ram:BasisAmount'), textAt(exempt, 'ram:ExemptionReasonCode'), textAt(exempt, 'ram:ExemptionReason')]).toEqual(['1190.00', 'VATEX-EU-132-1I', 'Exempt under § 4 Nr. 21 UStG']);

    const [first, second, third] = elementsAt(transaction, 'ram:IncludedSupplyChainTradeLineItem');
    expect(textAt(first!, 'ram:AssociatedDocumentLineDocument/ram:IncludedNote/ram:Content')).toBe('On site in Köln');
    expect(textAt(first!, 'ram:SpecifiedTradeProduct/ram:SellerAssignedID')).toBe('CONS-01');
    expect(elementAt(first!, 'ram:SpecifiedTradeProduct/ram:GlobalID').getAttribute('schemeID')).toBe('0160');
    expect(textAt(first!, 'ram:SpecifiedLineTradeDelivery/ram:BilledQuantity')).toBe('7.5');
    expect(textAt(second!, 'ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:ChargeAmount')).toBe('0.00125');
    expect(textAt(third!, 'ram:SpecifiedLineTradeAgreement/ram:NetPriceProductTradePrice/ram:BasisQuantity')).toBe('100');

    const agreement = elementAt(transaction, 'ram:ApplicableHeaderTradeAgreement');
    const seller = elementAt(agreement, 'ram:SellerTradeParty');
    expect(textAt(seller, 'ram:SpecifiedLegalOrganization/ram:ID')).toBe('123456789');
    expect(elementAt(seller, 'ram:SpecifiedLegalOrganization/ram:ID').getAttribute('schemeID')).toBe('0060');
    expect(textAt(seller, 'ram:SpecifiedLegalOrganization/ram:TradingBusinessName')).toBe('Seller Digital');
    expect(textAt(seller, 'ram:Description')).toBe('Geschäftsführer: Max Muster; Amtsgericht Köln HRB 12345');
    const buyer = elementAt(agreement, 'ram:BuyerTradeParty');
    expect(textAt(buyer, 'ram:GlobalID')).toBe(GLN);
    expect(textAt(buyer, 'ram:DefinedTradeContact/ram:PersonName')).toBe('Erika Mustermann');
    expect(textAt(agreement, 'ram:SellerTaxRepresentativeTradeParty/ram:SpecifiedTaxRegistration/ram:ID')).toBe('DE111222333');
    expect(textAt(settlement, 'ram:PayeeTradeParty/ram:Name')).toBe('Factoring Bank AG');
    expect(textAt(settlement, 'ram:PayeeTradeParty/ram:SpecifiedLegalOrganization/ram:ID')).toBe('HRB 99999');
    expect(textsAt(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans/ram:PayeePartyCreditorFinancialAccount/ram:IBANID')).toEqual(['DE89370400440532013000', 'DE02120300000000202051']);
    expect(textsAt(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans/ram:Information')).toEqual(['SEPA credit transfer']);
    expect(textAt(settlement, 'ram:InvoiceReferencedDocument/ram:IssuerAssignedID')).toBe('INV-2026-0001');
    expect(textAt(settlement, 'ram:InvoiceReferencedDocument/ram:FormattedIssueDateTime/qdt:DateTimeString')).toBe('20261001');

    const documents = elementsAt(agreement, 'ram:AdditionalReferencedDocument');
    expect(documents.map((document) => [textAt(document, 'ram:IssuerAssignedID'), textAt(document, 'ram:TypeCode'), textsAt(document, 'ram:Name').join()])).toEqual([
      ['att_timesheet', '916', 'Timesheet'],
      ['att_photo', '916', 'Proof of delivery'],
      ['att_usage', '916', ''],
    ]);
    const png = elementAt(documents[1]!, 'ram:AttachmentBinaryObject');
    expect([png.getAttribute('mimeCode'), png.getAttribute('filename')]).toEqual(['image/png', 'delivery.png']);
    expect(Buffer.from(png.textContent ?? '', 'base64').equals(files[1]!.content)).toBe(true);
  });

  it('writes a direct debit with its mandate, the creditor identifier and the debited account in each syntax', () => {
    const { einvoice } = focusedCases().find((entry) => entry.name === 'SEPA direct debit')!;
    const ubl = parseXml(writeUblInvoice(einvoice, 'xrechnung'));
    expect(textAt(ubl, 'cac:PaymentMeans/cbc:PaymentMeansCode')).toBe('59');
    expect(textAt(ubl, 'cac:PaymentMeans/cac:PaymentMandate/cbc:ID')).toBe('MANDATE-0042');
    expect(textAt(ubl, 'cac:PaymentMeans/cac:PaymentMandate/cac:PayerFinancialAccount/cbc:ID')).toBe('DE75512108001245126199');
    const sepa = elementsAt(ubl, 'cac:AccountingSupplierParty/cac:Party/cac:PartyIdentification/cbc:ID').filter((id) => id.getAttribute('schemeID') === 'SEPA');
    expect(sepa.map((id) => id.textContent)).toEqual(['DE98ZZZ09999999999']);

    const settlement = elementAt(parseXml(writeCiiInvoice(einvoice, 'xrechnung')), 'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement');
    expect(textAt(settlement, 'ram:CreditorReferenceID')).toBe('DE98ZZZ09999999999');
    expect(textAt(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans/ram:TypeCode')).toBe('59');
    expect(textAt(settlement, 'ram:SpecifiedTradeSettlementPaymentMeans/ram:PayerPartyDebtorFinancialAccount/ram:IBANID')).toBe('DE75512108001245126199');
    expect(textAt(settlement, 'ram:SpecifiedTradePaymentTerms/ram:DirectDebitMandateID')).toBe('MANDATE-0042');
  });

  it('writes a card payment with the card’s last digits and its holder, never a bank account', () => {
    const { einvoice } = focusedCases().find((entry) => entry.name === 'payment card')!;
    const ubl = parseXml(writeUblInvoice(einvoice, 'en16931'));
    expect(textAt(ubl, 'cac:PaymentMeans/cac:CardAccount/cbc:PrimaryAccountNumberID')).toBe('4242');
    expect(textAt(ubl, 'cac:PaymentMeans/cac:CardAccount/cbc:HolderName')).toBe('Erika Mustermann');
    expect(elementsAt(ubl, 'cac:PaymentMeans/cac:PayeeFinancialAccount')).toHaveLength(0);
    const means = elementAt(parseXml(writeCiiInvoice(einvoice, 'en16931')), 'rsm:SupplyChainTradeTransaction/ram:ApplicableHeaderTradeSettlement/ram:SpecifiedTradeSettlementPaymentMeans');
    expect([textAt(means, 'ram:TypeCode'), textAt(means, 'ram:Information'), textAt(means, 'ram:ApplicableTradeSettlementFinancialCard/ram:ID')]).toEqual(['48', 'Visa', '4242']);
  });

  it('gives each VAT group the allowances and charges of its category and rate (BT-116), and totals that add up (BR-CO-13, BR-CO-15, BR-CO-16)', () => {
    const { einvoice } = focusedCases().find((entry) => entry.name.startsWith('allowances and charges'))!;
    const ubl = parseXml(writeUblInvoice(einvoice, 'en16931'));
    // Lines: 2 × 450.00 − 12.5 % = 787.50 at 19 %, 300 × 1.25 = 375.00 at 7 %.
    // 19 %: 787.50 − 27.56 (3.5 % of 787.50) + 9.90 = 769.84; 7 %: 375.00 − 5.00 + 37.50 (10 % of 375.00) = 407.50.
    expect(elementsAt(ubl, 'cac:TaxTotal/cac:TaxSubtotal').map((group) => `${textAt(group, 'cac:TaxCategory/cbc:Percent')}: ${textAt(group, 'cbc:TaxableAmount')} ${textAt(group, 'cbc:TaxAmount')}`)).toEqual([
      '19: 769.84 146.27',
      '7: 407.50 28.53',
    ]);
    const total = (name: string) => textAt(ubl, `cac:LegalMonetaryTotal/cbc:${name}`);
    expect([total('LineExtensionAmount'), total('AllowanceTotalAmount'), total('ChargeTotalAmount'), total('TaxExclusiveAmount'), total('TaxInclusiveAmount'), total('PayableAmount')]).toEqual([
      '1162.50',
      '32.56',
      '47.40',
      '1177.34',
      '1352.14',
      '1352.14',
    ]);
  });

  it('leaves the new elements out of an invoice that uses none of the new terms', () => {
    const plain = base();
    const ubl = writeUblInvoice(plain, 'en16931').toString();
    for (const element of ['AllowanceCharge', 'PrepaidAmount', 'TaxCurrencyCode', 'PayeeParty', 'TaxRepresentativeParty', 'BillingReference', 'AdditionalDocumentReference', 'BaseQuantity', 'PartyName']) {
      expect(ubl).not.toContain(`:${element}>`);
    }
    const cii = writeCiiInvoice(plain, 'en16931').toString();
    for (const element of ['SpecifiedTradeAllowanceCharge', 'TotalPrepaidAmount', 'TaxCurrencyCode', 'PayeeTradeParty', 'SellerTaxRepresentativeTradeParty', 'InvoiceReferencedDocument', 'AdditionalReferencedDocument', 'BasisQuantity']) {
      expect(cii).not.toContain(`:${element}>`);
    }
  });
});

const OCTOBER = { start: '2026-10-01', end: '2026-10-31' };

/** Invoices that say when they supplied by periods: the service period alone, with a delivery date too, and on lines. */
const periodCases = (): { name: string; einvoice: EInvoice }[] => [
  { name: 'service period, no delivery date', einvoice: priced({ ...base(), deliveryDate: null, invoicePeriod: OCTOBER }) },
  { name: 'service period and delivery date', einvoice: priced({ ...base(), deliveryDate: '2026-10-31', invoicePeriod: OCTOBER }) },
  {
    name: 'line periods beside a delivery date',
    einvoice: priced({
      ...base(),
      lines: [
        line({ description: 'Hosting, October', unitAmount: '4900', period: OCTOBER }, 1),
        line({ description: 'On-site day', quantity: '8', unitCode: 'HUR', unitAmount: '9500', period: { start: '2026-10-14', end: '2026-10-14' } }, 2),
        line({ description: 'Setup', unitAmount: '15000' }, 3),
      ],
    }),
  },
  {
    name: 'service period and line periods, no delivery date',
    einvoice: priced({
      ...base(),
      deliveryDate: null,
      invoicePeriod: { start: '2026-09-01', end: '2026-10-31' },
      lines: [
        line({ description: 'Hosting, September', unitAmount: '4900', period: { start: '2026-09-01', end: '2026-09-30' } }, 1),
        line({ description: 'Hosting, October', unitAmount: '4900', period: OCTOBER }, 2),
      ],
    }),
  },
  {
    // BR-IC-11 is met by the period alone; the buyer's address stays the deliver-to place (BR-IC-12).
    name: 'intra-community supply (K) over a service period, no delivery date',
    einvoice: priced({
      ...base(),
      deliveryDate: null,
      invoicePeriod: OCTOBER,
      buyer: { ...base().buyer, name: 'Dupont et Fils SARL', taxId: 'FR12345678901', address: { line1: '12 rue de la Paix', line2: null, city: 'Paris', state: null, postal_code: '75002', country: 'FR' } },
      lines: [line({ description: 'Maintenance contract', unitAmount: '75000', taxCategory: 'K', taxRate: 0, taxExemptionReason: 'Intra-community supply', period: OCTOBER })],
    }),
  },
];

const periodCase = (name: string): EInvoice => periodCases().find((entry) => entry.name === name)!.einvoice;
const cii = (einvoice: EInvoice) => elementAt(parseXml(writeCiiInvoice(einvoice, 'en16931')), 'rsm:SupplyChainTradeTransaction');
/** A CII date (format 102) as the ISO date it stands for. */
const isoOf = (compact: string) => `${compact.slice(0, 4)}-${compact.slice(4, 6)}-${compact.slice(6, 8)}`;

describe('Invoicing period (BG-14) and line periods (BG-26)', () => {
  it('writes each period case in UBL, CII, XRechnung (both syntaxes) and Factur-X, each with 0 fatal from the official validator', async () => {
    const pdf = await printedPdf();
    const documents: DocumentToValidate[] = [];
    for (const { name, einvoice } of periodCases()) {
      documents.push(
        { name: `${name} / UBL`, bytes: writeUblInvoice(einvoice, 'en16931'), xrechnung: false },
        { name: `${name} / CII`, bytes: writeCiiInvoice(einvoice, 'en16931'), xrechnung: false },
        { name: `${name} / XRechnung UBL`, bytes: writeUblInvoice(einvoice, 'xrechnung'), xrechnung: true },
        { name: `${name} / XRechnung CII`, bytes: writeCiiInvoice(einvoice, 'xrechnung'), xrechnung: true },
        { name: `${name} / Factur-X`, bytes: await toFacturXPdf({ pdf, xml: writeCiiInvoice(einvoice, 'en16931'), at: new Date('2026-11-20T10:00:00Z') }), xrechnung: false },
      );
    }
    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
    // XRechnung's BR-DE-TMP-32 (a delivery date, an invoicing period or a period on every line) holds for each.
    for (const result of results) expect(result.report, result.name).not.toContain('BR-DE-TMP-32');
    expect(results).toHaveLength(documents.length);
  }, 900_000);

  it('states the service period instead of a delivery date when the invoice has no delivery date, in UBL and CII', () => {
    const einvoice = periodCase('service period, no delivery date');
    const ubl = parseXml(writeUblInvoice(einvoice, 'en16931'));
    expect([textAt(ubl, 'cac:InvoicePeriod/cbc:StartDate'), textAt(ubl, 'cac:InvoicePeriod/cbc:EndDate')]).toEqual(['2026-10-01', '2026-10-31']);
    expect(elementsAt(ubl, 'cac:Delivery')).toHaveLength(0);
    expect(elementsAt(ubl, 'cac:InvoiceLine/cac:InvoicePeriod')).toHaveLength(0);

    const transaction = cii(einvoice);
    const period = elementAt(transaction, 'ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod');
    expect([textAt(period, 'ram:StartDateTime/udt:DateTimeString'), textAt(period, 'ram:EndDateTime/udt:DateTimeString')].map(isoOf)).toEqual(['2026-10-01', '2026-10-31']);
    expect(elementAt(period, 'ram:StartDateTime/udt:DateTimeString').getAttribute('format')).toBe('102');
    // The delivery element stays (the schema requires it), empty.
    expect(elementAt(transaction, 'ram:ApplicableHeaderTradeDelivery').childNodes.length).toBe(0);
  });

  it('states both when the invoice has a delivery date and a service period', () => {
    const einvoice = periodCase('service period and delivery date');
    const ubl = parseXml(writeUblInvoice(einvoice, 'xrechnung'));
    expect(textAt(ubl, 'cac:Delivery/cbc:ActualDeliveryDate')).toBe('2026-10-31');
    expect([textAt(ubl, 'cac:InvoicePeriod/cbc:StartDate'), textAt(ubl, 'cac:InvoicePeriod/cbc:EndDate')]).toEqual(['2026-10-01', '2026-10-31']);
    const transaction = elementAt(parseXml(writeCiiInvoice(einvoice, 'xrechnung')), 'rsm:SupplyChainTradeTransaction');
    expect(isoOf(textAt(transaction, 'ram:ApplicableHeaderTradeDelivery/ram:ActualDeliverySupplyChainEvent/ram:OccurrenceDateTime/udt:DateTimeString'))).toBe('2026-10-31');
    expect(isoOf(textAt(transaction, 'ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString'))).toBe('2026-10-01');
    expect(isoOf(textAt(transaction, 'ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString'))).toBe('2026-10-31');
  });

  it('gives each line its own period, and none to a line without one', () => {
    const einvoice = periodCase('line periods beside a delivery date');
    const ubl = parseXml(writeUblInvoice(einvoice, 'en16931'));
    expect(elementsAt(ubl, 'cac:InvoicePeriod')).toHaveLength(0);
    expect(textAt(ubl, 'cac:Delivery/cbc:ActualDeliveryDate')).toBe('2026-11-18');
    const ublPeriods = elementsAt(ubl, 'cac:InvoiceLine').map((entry) => [...textsAt(entry, 'cac:InvoicePeriod/cbc:StartDate'), ...textsAt(entry, 'cac:InvoicePeriod/cbc:EndDate')]);
    expect(ublPeriods).toEqual([['2026-10-01', '2026-10-31'], ['2026-10-14', '2026-10-14'], []]);

    const transaction = cii(einvoice);
    expect(elementsAt(transaction, 'ram:ApplicableHeaderTradeSettlement/ram:BillingSpecifiedPeriod')).toHaveLength(0);
    const ciiPeriods = elementsAt(transaction, 'ram:IncludedSupplyChainTradeLineItem').map((entry) =>
      [
        ...textsAt(entry, 'ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/ram:StartDateTime/udt:DateTimeString'),
        ...textsAt(entry, 'ram:SpecifiedLineTradeSettlement/ram:BillingSpecifiedPeriod/ram:EndDateTime/udt:DateTimeString'),
      ].map(isoOf),
    );
    expect(ciiPeriods).toEqual(ublPeriods);
  });

  it('places the periods where the schemas’ sequences put them', () => {
    const einvoice = periodCase('service period and line periods, no delivery date');
    const childNames = (element: ReturnType<typeof parseXml>) => Array.from(element.childNodes).flatMap((child) => (child?.nodeType === 1 ? [(child as typeof element).localName] : []));
    const ubl = parseXml(writeUblInvoice(einvoice, 'en16931'));
    const header = childNames(ubl);
    expect(header.slice(header.indexOf('BuyerReference'), header.indexOf('BuyerReference') + 2)).toEqual(['BuyerReference', 'InvoicePeriod']);
    expect(childNames(elementsAt(ubl, 'cac:InvoiceLine')[0]!)).toEqual(['ID', 'InvoicedQuantity', 'LineExtensionAmount', 'InvoicePeriod', 'Item', 'Price']);
    const transaction = cii(einvoice);
    const settlement = childNames(elementAt(transaction, 'ram:ApplicableHeaderTradeSettlement'));
    expect(settlement.indexOf('BillingSpecifiedPeriod')).toBe(settlement.lastIndexOf('ApplicableTradeTax') + 1);
    expect(childNames(elementAt(elementsAt(transaction, 'ram:IncludedSupplyChainTradeLineItem')[0]!, 'ram:SpecifiedLineTradeSettlement'))).toEqual([
      'ApplicableTradeTax',
      'BillingSpecifiedPeriod',
      'SpecifiedTradeSettlementLineMonetarySummation',
    ]);
  });

  it('keeps the deliver-to country of an intra-community supply stated by its service period', () => {
    const ubl = parseXml(writeUblInvoice(periodCase('intra-community supply (K) over a service period, no delivery date'), 'en16931'));
    expect(elementsAt(ubl, 'cac:Delivery/cbc:ActualDeliveryDate')).toHaveLength(0);
    expect(textAt(ubl, 'cac:Delivery/cac:DeliveryLocation/cac:Address/cac:Country/cbc:IdentificationCode')).toBe('FR');
    expect(textAt(ubl, 'cac:InvoicePeriod/cbc:StartDate')).toBe('2026-10-01');
  });
});

/**
 * SHA-256 over the five exports (UBL, CII, XRechnung UBL and CII, Factur-X) of each invoice shape
 * the writers knew before invoice periods (BG-14, BG-26), as main's writers at 82178c9 wrote them.
 * Stored exports are never rewritten, so a new term must leave every document without it byte for
 * byte as it was; a deliberate change of these outputs goes with a new GENERATOR_VERSION.
 */
const DIGESTS_WITHOUT_PERIODS: Record<string, string> = {
  'every term': 'cd938b5e7503ad683b6d087996957a3a37eb4d966ac5041187b317a6bb1bdf4d',
  'several credit-transfer accounts': 'e34a52768b43e3649a024b2359c395ff672e4f919cb8e1f76f4f0acacd8b2de9',
  'SEPA direct debit': 'b8a8d01e7262b87a01e546f405d2e20ecbffdf03427811a60501a93557e06923',
  'payment card': 'f94144f60a66b2c5247038c19ad04c989f8dd1800d42e405761469e77b8534b3',
  'PayPal': '71a4296b66a0e0a1d6e68378ae73bdf9603f452f1dae160e39bcd0ba01167a4a',
  'other payment means': '19333e0d424cc0350ae9bd52cad589d4aa4cbb00d6c00f9c0acf702cbebd6f66',
  'allowances and charges, as amounts and as percentages': '5967ca5af00c808d7a393c90c40e34f156b028540e90760bd30ddf02a8c47595',
  'prepaid amount': 'e125e97b1fc5a60292905c433dd9ad048fb4d7e51cc1a102fc185fa7e1899b22',
  'decimal quantities and prices with a base quantity': '3571de394200db5c28327d3e366df28ae0c68ccc8a5d420b9fad49c0ce9b8564',
  'VAT in a tax currency (EUR → HUF)': '893c930e74ec339b90717d8a04e5d8a87e16b30aabdef90d9a8320a86e837c68',
  'exempt groups with VATEX codes': '17f2778664a81b00cd9813637e8ed43081cbcda8ee202c6d0e5c8b6c62517679',
  'payee': 'b9002b0fcfd366c59d86f1fc7b1dfdc3458f8d70a29ff07d36613f40f92e5e44',
  'tax representative': 'c720cd8d44540dce452e4044a6cf618955f0b1f5ab52da02c53084c50b5e9301',
  'supporting documents: PDF, PNG and CSV': '69086be985ec3c4f1e269ad8a24c7398c7ec18a944e23bc57d482ea20961c604',
  'shape: JPY (no minor unit)': '33f59b8f3f7f1e779031290343abaf63c7231f20be6a6e7729e8588d481b9b9c',
  'shape: KWD (three decimals)': 'b67b033bb9ea87264bad2852d5d4bfffda98045a084087be9d5bdab68f48eb8d',
  'shape: exempt (E) beside standard rated': '0ae3eb6b89ed710e2ce9a3dbde18caaed2c83c42dd45be4a919b556da14c77cc',
  'shape: export outside the EU (G)': '3892cf87365ac2a91ec354b887f449548b3b144cf7350b08a26408c307d4d035',
  'shape: intra-community supply (K)': '1704a54e9226456f58b8f8184f65596178a3421250e78dcfde53f51f7764d802',
  'shape: long texts and non-Latin names': '59dd0a35efbf47f6a9ff02b7e9abb7ccf3ae8738f1a32ad51dc6d588abd47e94',
  'shape: not subject to VAT (O)': 'b8cdebcf551fa80403ad680ed5e40b6cdbc570e250003e4b67865009f18fb1e3',
  'shape: one VAT rate, quantities above 1': '2e4691d250dc96d3ef5dd1508860558261bbbe71f95e216136e67f1aed832367',
  'shape: reverse charge (AE)': 'f9165c961ba0bceb316983acb48559672f556f687f96f270982cc880c2e0cadf',
  'shape: several VAT rates with percent and amount discounts': '6a966803b85ff4e94a5e36c245677a76bd51042d676bd69428e0ae721f0d8535',
  'invoice with a delivery date': 'd0df4f56a9b1d27031fd2c9aab145fe4dd048e928f7de4ef423c61a76f6e9482',
  'invoice finalized without a delivery date': '2fb264fd79880ee7be4b34c21adcd79d6808ab53885d8b56c203e0ae8d0c103f',
};

describe('exports of invoices without periods', () => {
  it('are byte for byte what the writers wrote before periods, for every shape', async () => {
    const pdf = await printedPdf();
    const shapes: { name: string; einvoice: EInvoice }[] = [
      { name: 'every term', einvoice: rich },
      ...focusedCases(),
      ...EINVOICE_SHAPES.map((shape) => ({ name: `shape: ${shape.name}`, einvoice: toEInvoice(makeInvoiceOfShape(shape)) })),
      { name: 'invoice with a delivery date', einvoice: toEInvoice(makeInvoice()) },
      { name: 'invoice finalized without a delivery date', einvoice: toEInvoice(makeInvoice({ delivery_date: null })) },
    ];
    const digests: Record<string, string> = {};
    for (const { name, einvoice } of shapes) {
      const hash = createHash('sha256');
      for (const bytes of [
        writeUblInvoice(einvoice, 'en16931'),
        writeCiiInvoice(einvoice, 'en16931'),
        writeUblInvoice(einvoice, 'xrechnung'),
        writeCiiInvoice(einvoice, 'xrechnung'),
        await toFacturXPdf({ pdf, xml: writeCiiInvoice(einvoice, 'en16931'), at: new Date('2026-11-20T10:00:00Z') }),
      ]) {
        hash.update(bytes);
      }
      digests[name] = hash.digest('hex');
    }
    expect(digests).toEqual(DIGESTS_WITHOUT_PERIODS);
  });
});
