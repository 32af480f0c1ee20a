import { describe, expect, it } from 'vitest';
import { Bic, Iban, taxCategoryIssues, UnitCode, type TaxCategory } from './einvoice-fields.ts';
import { einvoiceReadiness, isListedIcdScheme, missingEinvoiceFields, type ReadinessInput } from './einvoice-readiness.ts';
import type { PaymentMeans } from './business-terms.ts';
import type { InvoiceLine } from './invoices.ts';
import { categoryTaxOf, taxBreakdownOf } from './tax-breakdown.ts';

const address = { line1: 'Hauptstraße 1', line2: null, city: 'Berlin', state: null, postal_code: '10115', country: 'DE' };
const makeLine = (overrides: Partial<InvoiceLine> = {}): InvoiceLine => ({
  id: 'ii_1', object: 'invoiceitem', livemode: true, price: null, product: null, description: 'Audit', quantity: 1, unit_amount: 1000, discount: null,
  discount_amount: 0, tax_rate: 19, amount: 1000, tax: 190, unit_code: 'C62', tax_category: 'S', tax_exemption_reason: null, period: null,
  quantity_decimal: '1', unit_amount_decimal: '1000', price_base_quantity: '1', tax_exemption_reason_code: null, sku: null, standard_id: null, standard_id_scheme: null, note: null, ...overrides,
});
const means = (overrides: Partial<PaymentMeans> & Pick<PaymentMeans, 'type'>): PaymentMeans => ({
  information: null, iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null, ...overrides,
});
const creditTransfer = means({ type: 'credit_transfer', iban: 'DE89370400440532013000' });
const directDebit = means({ type: 'sepa_direct_debit', mandate_reference: 'M-1', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051' });
const card = means({ type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' });
const representative = { name: 'Steuer AG', tax_id: 'DE111222333', address: { ...address, city: 'München', postal_code: '80331' } };
const makeInvoice = (overrides: Partial<ReadinessInput> = {}, lines: InvoiceLine[] = [makeLine()]): ReadinessInput => ({
  currency: 'EUR',
  buyer_reference: '991-12345-67',
  delivery_date: '2026-11-22',
  service_period: null,
  subtotal: lines.reduce((sum, line) => sum + line.amount, 0),
  discount_total: 0,
  taxable_amount: lines.reduce((sum, line) => sum + line.amount, 0),
  tax_total: lines.reduce((sum, line) => sum + line.tax, 0),
  total: lines.reduce((sum, line) => sum + line.amount + line.tax, 0),
  business_snapshot: {
    business_name: 'Seller GmbH', email: 'ar@seller.example', address, tax_id: 'DE123456789', payment_instructions: null, brand_color: null,
    phone: '+49 30 1', contact_name: 'AR', electronic_address: 'ar@seller.example', electronic_address_scheme: 'EM',
    payment_account: { iban: 'DE89370400440532013000', bic: null, name: null },
    trading_name: null, registration_id: null, registration_id_scheme: null, legal_info: null, tax_representative: null,
  },
  customer_snapshot: {
    name: 'Stadt Köln', email: 'r@koeln.example', address: { ...address, city: 'Köln', postal_code: '50679' }, tax_id: 'DE987654321',
    electronic_address: 'r@koeln.example', electronic_address_scheme: 'EM', buyer_reference: '991-12345-67',
    identifier: null, identifier_scheme: null, contact_name: null,
  },
  lines: { object: 'list', data: lines },
  tax_breakdown: taxBreakdownOf(lines),
  payment_means: [creditTransfer],
  payee: null,
  preceding_invoice: null,
  due_date: '2026-12-22',
  footer: null,
  prepaid_amount: 0,
  ...overrides,
});
const seller = makeInvoice().business_snapshot!;
const buyer = makeInvoice().customer_snapshot!;
const rulesOf = (invoice: ReadinessInput, profile: 'en16931' | 'xrechnung') => missingEinvoiceFields(invoice, profile).map((entry) => `${entry.path} ${entry.rule}`);

describe('einvoiceReadiness', () => {
  it('a complete invoice is ready in both profiles', () => {
    expect(einvoiceReadiness(makeInvoice())).toEqual({ en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } });
  });

  it.each<[string, ReadinessInput, string[], string[]]>([
    // name, invoice, missing for EN 16931, missing for XRechnung beyond them
    ['a draft (no snapshots)', makeInvoice({ business_snapshot: null, customer_snapshot: null }), ['status BR-1'], []],
    ['no seller name', makeInvoice({ business_snapshot: { ...seller, business_name: null } }), ['business_snapshot.business_name BR-6'], []],
    ['no seller country', makeInvoice({ business_snapshot: { ...seller, address: { ...address, country: null } } }), ['business_snapshot.address.country BR-9'], []],
    ['no buyer country', makeInvoice({ customer_snapshot: { ...buyer, address: { ...buyer.address, country: null } } }), ['customer_snapshot.address.country BR-11'], []],
    ['no seller VAT id with S lines', makeInvoice({ business_snapshot: { ...seller, tax_id: null } }), ['business_snapshot.tax_id BR-S-02'], []],
    ['a seller VAT id without country prefix', makeInvoice({ business_snapshot: { ...seller, tax_id: '123456789' } }), ['business_snapshot.tax_id BR-CO-09'], []],
    ['no buyer reference', makeInvoice({ buyer_reference: null }), [], ['buyer_reference BR-DE-15']],
    ['an amount due without due date or payment terms', makeInvoice({ due_date: null }), ['due_date BR-CO-25'], []],
    ['no due date but payment terms in the footer', makeInvoice({ due_date: null, footer: 'Payable within 30 days.' }), [], []],
    ['no due date and nothing due (prepaid in full)', makeInvoice({ due_date: null, prepaid_amount: makeInvoice().total }), [], []],
    // The invoice's frozen payment means decide, not the seller's payment account at finalization.
    ['no payment means, whatever the seller payment account', makeInvoice({ payment_means: [] }), [], ['payment_means BR-DE-1']],
    ['no payment account but other payment means', makeInvoice({ business_snapshot: { ...seller, payment_account: null }, payment_means: [card] }), [], []],
    ['a direct debit without creditor id and debited account', makeInvoice({ payment_means: [{ ...directDebit, creditor_id: null, debited_iban: null }] }), [], [
      'payment_means.0.creditor_id BR-DE-30', 'payment_means.0.debited_iban BR-DE-31',
    ]],
    ['a complete direct debit', makeInvoice({ payment_means: [directDebit] }), [], []],
    ['a card payment without its digits', makeInvoice({ payment_means: [{ ...card, card_last4: null }] }), [], ['payment_means.0.card_last4 BR-DE-24-a']],
    ['PayPal, or other means', makeInvoice({ payment_means: [means({ type: 'paypal', information: 'pay@seller.example' })] }), [], []],
    ['a credit transfer without IBAN', makeInvoice({ payment_means: [creditTransfer, { ...creditTransfer, iban: null }] }), ['payment_means.1.iban BR-61'], []],
    ['payment means of two types', makeInvoice({ payment_means: [creditTransfer, card] }), ['payment_means UBL-SR-47'], []],
    ['two cards', makeInvoice({ payment_means: [card, card] }), ['payment_means UBL-SR-54'], []],
    ['two direct debit mandates', makeInvoice({ payment_means: [directDebit, directDebit] }), ['payment_means UBL-SR-55'], []],
    ['a payee without a name', makeInvoice({ payee: { name: '', identifier: null, legal_registration_id: null } }), ['payee.name BR-17'], []],
    ['a payee', makeInvoice({ payee: { name: 'Factoring GmbH', identifier: 'FG-1', legal_registration_id: 'HRB 1' } }), [], []],
    ['a preceding invoice without a number', makeInvoice({ preceding_invoice: { number: '', issue_date: null } }), ['preceding_invoice.number BR-55'], []],
    ['a tax representative instead of the seller VAT id', makeInvoice({ business_snapshot: { ...seller, tax_id: null, registration_id: 'HRB 12345', tax_representative: representative } }), [], []],
    ['a tax representative, but no seller identifier at all', makeInvoice({ business_snapshot: { ...seller, tax_id: null, tax_representative: representative } }), ['business_snapshot.tax_id BR-CO-26'], []],
    ['a tax representative without VAT id', makeInvoice({ business_snapshot: { ...seller, tax_representative: { ...representative, tax_id: '' } } }), ['business_snapshot.tax_representative.tax_id BR-56'], []],
    ['a tax representative VAT id without country prefix', makeInvoice({ business_snapshot: { ...seller, tax_representative: { ...representative, tax_id: '111222333' } } }), [
      'business_snapshot.tax_representative.tax_id BR-CO-09',
    ], []],
    ['a tax representative without country', makeInvoice({ business_snapshot: { ...seller, tax_representative: { ...representative, address: { ...address, country: null } } } }), [
      'business_snapshot.tax_representative.address.country BR-20',
    ], []],
    ['a registration id scheme the ICD list lacks', makeInvoice({ business_snapshot: { ...seller, registration_id: 'HRB 1', registration_id_scheme: '0092' } }), ['business_snapshot.registration_id_scheme BR-CL-11'], []],
    ['a listed registration id scheme', makeInvoice({ business_snapshot: { ...seller, registration_id: 'HRB 1', registration_id_scheme: '0204' } }), [], []],
    ['a buyer identifier scheme the ICD list lacks', makeInvoice({ customer_snapshot: { ...buyer, identifier: 'X', identifier_scheme: '9999' } }), ['customer_snapshot.identifier_scheme BR-CL-10'], []],
    ['a buyer identifier with a GLN scheme', makeInvoice({ customer_snapshot: { ...buyer, identifier: '4000001000005', identifier_scheme: '0088' } }), [], []],
    ['a registration id scheme without registration id', makeInvoice({ business_snapshot: { ...seller, registration_id_scheme: '0088' } }), ['business_snapshot.registration_id_scheme BR-CL-11'], []],
    ['no seller contact', makeInvoice({ business_snapshot: { ...seller, contact_name: null, phone: null, email: null } }), [], [
      'business_snapshot.contact_name BR-DE-5', 'business_snapshot.phone BR-DE-6', 'business_snapshot.email BR-DE-7',
    ]],
    ['no seller city and post code', makeInvoice({ business_snapshot: { ...seller, address: { ...address, city: null, postal_code: null } } }), [], [
      'business_snapshot.address.city BR-DE-3', 'business_snapshot.address.postal_code BR-DE-4',
    ]],
    ['no buyer electronic address', makeInvoice({ customer_snapshot: { ...buyer, electronic_address: null, electronic_address_scheme: null } }), [], ['customer_snapshot.electronic_address BT-49']],
    ['no seller electronic address', makeInvoice({ business_snapshot: { ...seller, electronic_address: null, electronic_address_scheme: null } }), [], ['business_snapshot.electronic_address BT-34']],
  ])('%s', (_name, invoice, core, xrechnungOnly) => {
    expect(rulesOf(invoice, 'en16931')).toEqual(core);
    expect(rulesOf(invoice, 'xrechnung')).toEqual([...core, ...xrechnungOnly]);
  });

  const exempt = (category: TaxCategory) => makeLine({ tax_category: category, tax_rate: 0, tax: 0, tax_exemption_reason: 'Reason' });
  it.each<[string, InvoiceLine[], Partial<ReadinessInput>, string[]]>([
    ['reverse charge without buyer VAT id', [exempt('AE')], { customer_snapshot: { ...buyer, tax_id: null } }, ['customer_snapshot.tax_id BR-AE-02']],
    ['intra-community supply without buyer VAT id', [exempt('K')], { customer_snapshot: { ...buyer, tax_id: null } }, ['customer_snapshot.tax_id BR-IC-02']],
    ['intra-community supply without delivery date', [exempt('K')], { delivery_date: null }, ['delivery_date BR-IC-11']],
    ['intra-community supply over a service period, without delivery date', [exempt('K')], { delivery_date: null, service_period: { start: '2026-10-01', end: '2026-10-31' } }, []],
    ['not subject to VAT mixed with standard rate', [exempt('O'), makeLine()], {}, ['lines BR-O-11']],
    ['not subject to VAT alone without any seller identifier', [exempt('O')], { business_snapshot: { ...seller, tax_id: null } }, ['business_snapshot.tax_id BR-CO-26']],
    ['not subject to VAT alone, identified by the registration id', [exempt('O')], { business_snapshot: { ...seller, tax_id: null, registration_id: 'HRB 12345' } }, []],
    ['not subject to VAT with a tax representative', [exempt('O')], { business_snapshot: { ...seller, tax_representative: representative } }, ['business_snapshot.tax_representative BR-O-02']],
    ['intra-community supply, seller VAT via its tax representative', [exempt('K')], { business_snapshot: { ...seller, tax_id: null, registration_id: 'HRB 1', tax_representative: representative } }, []],
    ['an exempt line with a rate', [makeLine({ tax_category: 'E', tax_exemption_reason: 'Exempt' })], {}, ['lines.data.0.tax_rate BR-E-05']],
  ])('%s', (_name, lines, overrides, expected) => {
    expect(rulesOf({ ...makeInvoice({}, lines), ...overrides }, 'en16931')).toEqual(expected);
  });

  it('refuses a breakdown taxed per line (BR-CO-17): the figures of invoices finalized before the per-category rule', () => {
    const lines = [1, 2, 3].map(() => makeLine({ unit_amount: 1, amount: 1, tax: 0 }));
    expect(rulesOf(makeInvoice({}, lines), 'en16931')).toEqual(['tax_breakdown.0.tax BR-CO-17']);
  });

  it('refuses KWD amounts that need three decimals, and accepts whole multiples of 10 fils', () => {
    expect(rulesOf(makeInvoice({ currency: 'KWD' }, [makeLine({ unit_amount: 1001, amount: 1001, tax: 190 })]), 'en16931')).toEqual(['currency BR-DEC-23']);
    expect(rulesOf(makeInvoice({ currency: 'KWD' }), 'en16931')).toEqual([]);
    expect(rulesOf(makeInvoice({ currency: 'JPY' }, [makeLine({ unit_amount: 105, amount: 105, tax: 20 })]), 'en16931')).toEqual([]);
  });

  it('names the rule in every message', () => {
    for (const entry of missingEinvoiceFields(makeInvoice({ buyer_reference: null, business_snapshot: { ...seller, phone: null } }), 'xrechnung')) {
      expect(entry.message.startsWith(`${entry.rule}: `)).toBe(true);
    }
  });
});

describe('isListedIcdScheme', () => {
  it.each([['0002', true], ['0088', true], ['0248', true], ['0001', false], ['0092', false], ['0103', false], ['0181', false], ['0249', false], ['88', false], ['SEPA', false]] as const)('%s: %s', (scheme, listed) => {
    expect(isListedIcdScheme(scheme)).toBe(listed);
  });
});

describe('line tax category rules', () => {
  it.each<[TaxCategory, number, string | null, string[]]>([
    ['S', 19, null, []],
    ['S', 0, null, ['tax_category']],
    ['Z', 0, null, []],
    ['Z', 7, null, ['tax_category']],
    ['E', 0, null, ['tax_exemption_reason']],
    ['E', 0, 'Exempt under §4', []],
    ['AE', 0, 'Reverse charge', []],
    ['AE', 19, 'Reverse charge', ['tax_category']],
    ['K', 0, null, ['tax_exemption_reason']],
    ['G', 0, 'Export', []],
    ['O', 5, 'Not subject', ['tax_category']],
    ['S', 19, 'Why', ['tax_exemption_reason']],
    ['Z', 0, 'Why', ['tax_exemption_reason']],
  ])('%s at %d with reason %s: %j', (taxCategory, taxRate, taxExemptionReason, fields) => {
    expect(taxCategoryIssues({ taxCategory, taxRate, taxExemptionReason }).map((issue) => issue.field)).toEqual(fields);
  });
});

describe('field formats', () => {
  it.each([
    ['DE89 3704 0044 0532 0130 00', 'DE89370400440532013000'],
    ['gb29nwbk60161331926819', 'GB29NWBK60161331926819'],
    ['FR14 2004 1010 0505 0001 3M02 606', 'FR1420041010050500013M02606'],
  ])('accepts the IBAN %s as %s', (input, stored) => {
    expect(Iban.parse(input)).toBe(stored);
  });
  it.each(['DE88 3704 0044 0532 0130 00', 'DE89', '1234567890123456', 'DE89 3704 0044 0532 0130 0!'])('refuses the IBAN %s', (input) => {
    expect(Iban.safeParse(input).success).toBe(false);
  });
  it.each([['cobadeffxxx', 'COBADEFFXXX'], ['DEUTDEFF', 'DEUTDEFF']])('accepts the BIC %s', (input, stored) => {
    expect(Bic.parse(input)).toBe(stored);
  });
  it.each(['COBADEFFX', 'CO1ADEFF', 'COBADE'])('refuses the BIC %s', (input) => {
    expect(Bic.safeParse(input).success).toBe(false);
  });
  it.each([['c62', 'C62'], ['HUR', 'HUR'], ['XPP', 'XPP'], ['h87', 'H87']])('accepts the unit code %s', (input, stored) => {
    expect(UnitCode.parse(input)).toBe(stored);
  });
  it.each(['hours', 'C', 'C-6'])('refuses the unit code %s', (input) => {
    expect(UnitCode.safeParse(input).success).toBe(false);
  });
  it.each<[bigint, number, bigint]>([
    [3n, 19, 1n], [1000n, 8.5, 85n], [10n, 5, 1n], [9n, 5, 0n], [210n, 10, 21n], [999n, 7.7, 77n],
  ])('categoryTaxOf(%d, %d) = %d', (taxable, rate, tax) => {
    expect(categoryTaxOf(taxable, rate)).toBe(tax);
  });
});
