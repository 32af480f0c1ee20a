import type { Invoice } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHashOf, CURRENT_DOCUMENT_VERSION, documentVersionOf, GENESIS_CHAIN, sha256Hex, snapshotHashOf as hashOf, type DocumentVersion } from './invoice-integrity.domain.ts';

const snapshotHashOf = (invoice: Invoice, version: DocumentVersion = 2) => hashOf(invoice, version);

const address = { line1: null, line2: null, city: 'Köln', state: null, postal_code: null, country: 'DE' };
const makeInvoice = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887',
  object: 'invoice',
  livemode: true,
  number: 'INV/2026/0001',
  status: 'open',
  customer: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887',
  customer_name: 'Müller GmbH',
  subscription: null,
  currency: 'EUR',
  collection_method: 'send_invoice',
  issue_date: '2026-11-22',
  due_date: '2026-12-22',
  days_until_due: 30,
  subtotal: 1000,
  discount_total: 0,
  taxable_amount: 1000,
  tax_total: 190,
  total: 1190,
  amount_due: 1190,
  amount_paid: 0,
  amount_remaining: 1190,
  remittance_reference: null,
  notes: null,
  footer: null,
  buyer_reference: null,
  purchase_order: null,
  delivery_date: '2026-11-22',
  service_period: null,
  allowance_total: 0,
  charge_total: 0,
  prepaid_amount: 0,
  allowances: [],
  charges: [],
  tax_currency: null,
  tax_exchange_rate: null,
  tax_total_in_tax_currency: null,
  payment_means: [],
  payee: null,
  preceding_invoice: null,
  attachments: [],
  locale: 'en',
  business_snapshot: {
    business_name: 'Seller',
    email: null,
    address,
    tax_id: 'DE1',
    payment_instructions: null,
    brand_color: null,
    phone: null,
    contact_name: null,
    electronic_address: null,
    electronic_address_scheme: null,
    payment_account: null,
    trading_name: null, registration_id: null, registration_id_scheme: null, legal_info: null, tax_representative: null,
  },
  customer_snapshot: { name: 'Müller GmbH', email: null, address, tax_id: null, electronic_address: null, electronic_address_scheme: null, buyer_reference: null, identifier: null, identifier_scheme: null, contact_name: null },
  public_url_token: 'tok',
  public_url: 'http://localhost:8080/i/tok',
  finalized_at: '2026-11-22T10:00:00.000Z',
  paid_at: null,
  payment_reference: null,
  voided_at: null,
  void_reason: null,
  snapshot_sha256: null,
  chain_sha256: null,
  metadata: {},
  created_at: '2026-11-22T09:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  lines: { object: 'list', data: [] },
  tax_breakdown: [],
  einvoice: null,
  ...overrides,
});

describe('invoice integrity', () => {
  it('writes canonical JSON with sorted keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, { z: null, y: 'é' }], c: true } })).toBe('{"a":{"c":true,"d":[2,{"y":"é","z":null}]},"b":1}');
  });

  it('hashes only what finalization froze: paying, voiding, moving or rotating the public link changes nothing', () => {
    const open = snapshotHashOf(makeInvoice());
    expect(snapshotHashOf(makeInvoice({ status: 'paid', amount_due: 0, amount_paid: 1190, paid_at: '2026-11-23T00:00:00.000Z' }))).toBe(open);
    expect(snapshotHashOf(makeInvoice({ status: 'void', voided_at: '2026-11-23T00:00:00.000Z', void_reason: 'x' }))).toBe(open);
    expect(snapshotHashOf(makeInvoice({ public_url: 'https://pay.example.com/i/tok' }))).toBe(open);
    expect(snapshotHashOf(makeInvoice({ public_url_token: 'rotated', public_url: 'http://localhost:8080/i/rotated' }))).toBe(open);
  });

  it('changes with any frozen field', () => {
    const open = snapshotHashOf(makeInvoice());
    expect(snapshotHashOf(makeInvoice({ total: 1191 }))).not.toBe(open);
    expect(snapshotHashOf(makeInvoice({ number: 'INV/2026/0002' }))).not.toBe(open);
    expect(snapshotHashOf(makeInvoice({ customer_snapshot: { ...makeInvoice().customer_snapshot!, name: 'Other' } }))).not.toBe(open);
    expect(snapshotHashOf(makeInvoice({ buyer_reference: '991-12345-67' }))).not.toBe(open);
    expect(snapshotHashOf(makeInvoice({ business_snapshot: { ...makeInvoice().business_snapshot!, phone: '+49 1' } }))).not.toBe(open);
  });

  it('hashes a line discount in the shape of version 1 (both keys), whichever shape the API shows it in', () => {
    const line = {
      id: 'ii_0190f3e2c1b27a8e9d1f3c4b5a697887',
      object: 'invoiceitem' as const,
      livemode: true,
      price: null,
      product: null,
      description: 'Travel',
      quantity: 1,
      unit_amount: 1000,
      discount_amount: 100,
      tax_rate: 19,
      amount: 900,
      tax: 171,
      unit_code: 'C62',
      tax_category: 'S' as const,
      tax_exemption_reason: null,
      period: null,
      quantity_decimal: '1', unit_amount_decimal: '1000', price_base_quantity: '1', tax_exemption_reason_code: null, sku: null, standard_id: null, standard_id_scheme: null, note: null,
    };
    const withDiscount = (discount: unknown) => makeInvoice({ lines: { object: 'list', data: [{ ...line, discount } as Invoice['lines']['data'][number]] } });
    // Invoices finalized while responses carried both keys were hashed that way; verify must still match them.
    expect(snapshotHashOf(withDiscount({ amount_off: 100 }))).toBe(snapshotHashOf(withDiscount({ amount_off: 100, percent_off: null })));
    expect(snapshotHashOf(withDiscount({ percent_off: 10 }))).toBe(snapshotHashOf(withDiscount({ amount_off: null, percent_off: 10 })));
    expect(snapshotHashOf(withDiscount({ percent_off: 10 }))).not.toBe(snapshotHashOf(withDiscount({ amount_off: 10 })));
    expect(snapshotHashOf(withDiscount(null))).not.toBe(snapshotHashOf(withDiscount({ amount_off: 100 })));
  });

  it('chains each snapshot hash onto the previous chain value', () => {
    const first = chainHashOf(GENESIS_CHAIN, 'a'.repeat(64));
    expect(first).toBe(sha256Hex(`${'0'.repeat(64)}${'a'.repeat(64)}`));
    expect(chainHashOf(first, 'b'.repeat(64))).not.toBe(chainHashOf(GENESIS_CHAIN, 'b'.repeat(64)));
  });

  it('never hashes what reads derive from the hashed lines: tax_breakdown and einvoice', () => {
    const open = snapshotHashOf(makeInvoice());
    const breakdown = [{ tax_category: 'S' as const, tax_rate: 19, taxable_amount: 1000, tax: 190, tax_exemption_reason: null }];
    expect(snapshotHashOf(makeInvoice({ tax_breakdown: breakdown, einvoice: { en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } } }))).toBe(open);
  });
});

// An invoice finalized before the e-invoice fields, hashed by the code of that time (version 1):
// its hash was recorded then and must keep verifying however the response has grown since.
describe('document version 1 (invoices finalized before issue #12)', () => {
  const V1_HASH = '8e2b9ea6936a0cb77f807cba691a6c6c81fbea786711e8a085cb7878a2c06ade';
  const v1Address = { line1: 'Hauptstraße 5', line2: null, city: 'Köln', state: null, postal_code: '50667', country: 'DE' };
  const v1Line = (n: number, overrides: object) => ({
    id: `ii_0190f3e2c1b27a8e9d1f3c4b5a69788${n}`,
    object: 'invoiceitem' as const,
    livemode: true,
    price: null,
    product: null,
    description: `Line ${n}`,
    quantity: 3,
    unit_amount: 333,
    discount: null,
    discount_amount: 0,
    tax_rate: 19,
    amount: 999,
    tax: 190,
    // What reads add now to a line stored before (the migration's defaults).
    unit_code: 'C62',
    tax_category: 'S' as const,
    tax_exemption_reason: null,
    period: null,
    quantity_decimal: '1', unit_amount_decimal: '1000', price_base_quantity: '1', tax_exemption_reason_code: null, sku: null, standard_id: null, standard_id_scheme: null, note: null,
    ...overrides,
  });
  // The invoice as reads show it today: the old snapshots' new keys read as null, the lines carry their defaults.
  const asReadToday = makeInvoice({
    subtotal: 2998,
    discount_total: 100,
    taxable_amount: 2898,
    tax_total: 551,
    total: 3449,
    amount_due: 3449,
    notes: 'Thanks',
    delivery_date: null,
    business_snapshot: {
      business_name: 'Seller GmbH', email: 'seller@example.com', address: v1Address, tax_id: 'DE111111111', payment_instructions: 'IBAN DE89', brand_color: '#1A2B3C',
      phone: null, contact_name: null, electronic_address: null, electronic_address_scheme: null, payment_account: null, trading_name: null, registration_id: null, registration_id_scheme: null, legal_info: null, tax_representative: null,
    },
    customer_snapshot: { name: 'Müller GmbH', email: 'billing@mueller.example', address: v1Address, tax_id: 'DE123456789', electronic_address: null, electronic_address_scheme: null, buyer_reference: null, identifier: null, identifier_scheme: null, contact_name: null },
    lines: {
      object: 'list',
      data: [
        v1Line(1, {}),
        v1Line(2, { discount: { amount_off: 100 }, discount_amount: 100, amount: 899, tax: 171 }),
        v1Line(3, { quantity: 1, unit_amount: 1000, tax_rate: 7, amount: 1000, tax: 70, discount: { percent_off: 0 } }),
      ],
    },
    tax_breakdown: [
      { tax_category: 'S', tax_rate: 19, taxable_amount: 1898, tax: 361, tax_exemption_reason: null },
      { tax_category: 'S', tax_rate: 7, taxable_amount: 1000, tax: 70, tax_exemption_reason: null },
    ],
  });

  it('hashes as it was hashed before the e-invoice fields existed', () => {
    expect(snapshotHashOf(asReadToday, 1)).toBe(V1_HASH);
  });

  it('still finds an edit of a field version 1 holds', () => {
    expect(snapshotHashOf({ ...asReadToday, tax_total: 552 }, 1)).not.toBe(V1_HASH);
  });

  it('is another document than version 2', () => {
    expect(snapshotHashOf(asReadToday, 2)).not.toBe(V1_HASH);
  });
});

// Version 4 (issue #25) adds the EN 16931 business terms beyond the first set; versions 1 to 3 hash
// exactly what they hashed before it (hashes recorded with the code of version 3).
describe('document version 4 (issue #25 business terms)', () => {
  const line: Invoice['lines']['data'][number] = {
    id: 'ii_0190f3e2c1b27a8e9d1f3c4b5a697887',
    object: 'invoiceitem',
    livemode: true,
    price: null,
    product: null,
    description: 'Travel',
    quantity: 1,
    unit_amount: 1000,
    discount: { percent_off: 10 },
    discount_amount: 100,
    tax_rate: 19,
    amount: 900,
    tax: 171,
    unit_code: 'C62',
    tax_category: 'S',
    tax_exemption_reason: null,
    period: { start: '2026-11-01', end: '2026-11-30' },
    quantity_decimal: '1',
    unit_amount_decimal: '1000',
    price_base_quantity: '1',
    tax_exemption_reason_code: null,
    sku: null,
    standard_id: null,
    standard_id_scheme: null,
    note: null,
  };
  const base = makeInvoice({ lines: { object: 'list', data: [line] } });
  const RECORDED = {
    1: 'e66c5a457cb4bc5acb36bbe2de8cbb1c7c249bc00c7665a816e73a9d6f18be9c',
    2: 'f07cdeb7ea836509efde199e98c95239203c8d47eabbcf9cb99abcfc72c06a6e',
    3: '9ab0c4d2f32233157d4b6dac6deaa4d0f78c58cc0b234526f2e4424e5ac42931',
  } as const;

  it.each([1, 2, 3] as const)('version %d hashes as before, and ignores every key version 4 adds', (version) => {
    expect(snapshotHashOf(base, version)).toBe(RECORDED[version]);
    const withTerms = makeInvoice({
      lines: { object: 'list', data: [{ ...line, quantity_decimal: '1.0', sku: 'SKU', note: 'n', standard_id: '1', standard_id_scheme: '0160', tax_exemption_reason_code: 'VATEX-EU-AE' }] },
      allowances: [{ amount: 10, percent: null, base_amount: null, reason: 'x', reason_code: null, tax_category: 'S', tax_rate: 19 }],
      prepaid_amount: 5,
      tax_currency: 'HUF',
      tax_exchange_rate: '391.25',
      tax_total_in_tax_currency: 1,
      payee: { name: 'Factor', identifier: null, legal_registration_id: null },
      business_snapshot: { ...base.business_snapshot!, trading_name: 'Shop' },
      customer_snapshot: { ...base.customer_snapshot!, identifier: '4000001123452', identifier_scheme: '0088' },
    });
    expect(snapshotHashOf(withTerms, version)).toBe(RECORDED[version]);
  });

  it('is the current version, and another document than version 3', () => {
    expect(CURRENT_DOCUMENT_VERSION).toBe(4);
    expect(snapshotHashOf(base, 4)).not.toBe(RECORDED[3]);
    expect(documentVersionOf(4)).toBe(4);
  });

  it.each<[string, Partial<Invoice>]>([
    ['allowances', { allowances: [{ amount: 10, percent: null, base_amount: null, reason: 'x', reason_code: null, tax_category: 'S', tax_rate: 19 }] }],
    ['charges', { charges: [{ amount: 10, percent: null, base_amount: null, reason: 'x', reason_code: 'FC', tax_category: 'S', tax_rate: 19 }] }],
    ['allowance_total', { allowance_total: 10 }],
    ['charge_total', { charge_total: 10 }],
    ['prepaid_amount', { prepaid_amount: 5 }],
    ['tax_currency', { tax_currency: 'HUF' }],
    ['tax_exchange_rate', { tax_exchange_rate: '391.25' }],
    ['tax_total_in_tax_currency', { tax_total_in_tax_currency: 1 }],
    ['payment_means', { payment_means: [{ type: 'paypal', information: null, iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null }] }],
    ['payee', { payee: { name: 'Factor', identifier: null, legal_registration_id: null } }],
    ['preceding_invoice', { preceding_invoice: { number: 'INV/2026/0001', issue_date: null } }],
    ['attachments', { attachments: [{ id: 'att_1', object: 'invoice_attachment', livemode: true, filename: 'a.pdf', content_type: 'application/pdf', size: 1, sha256: 'a'.repeat(64), description: null }] }],
    ['business_snapshot.trading_name', { business_snapshot: { ...base.business_snapshot!, trading_name: 'Shop' } }],
    ['business_snapshot.registration_id', { business_snapshot: { ...base.business_snapshot!, registration_id: 'HRB 1' } }],
    ['business_snapshot.registration_id_scheme', { business_snapshot: { ...base.business_snapshot!, registration_id_scheme: '0204' } }],
    ['business_snapshot.legal_info', { business_snapshot: { ...base.business_snapshot!, legal_info: 'Capital' } }],
    ['business_snapshot.tax_representative', { business_snapshot: { ...base.business_snapshot!, tax_representative: { name: 'Rep', tax_id: 'DE1', address: base.customer_snapshot!.address } } }],
    ['customer_snapshot.identifier', { customer_snapshot: { ...base.customer_snapshot!, identifier: '4000001123452' } }],
    ['customer_snapshot.identifier_scheme', { customer_snapshot: { ...base.customer_snapshot!, identifier_scheme: '0088' } }],
    ['customer_snapshot.contact_name', { customer_snapshot: { ...base.customer_snapshot!, contact_name: 'Jane' } }],
    ...(['quantity_decimal', 'unit_amount_decimal', 'price_base_quantity', 'tax_exemption_reason_code', 'sku', 'standard_id', 'standard_id_scheme', 'note'] as const).map(
      (key): [string, Partial<Invoice>] => [`lines.data.0.${key}`, { lines: { object: 'list', data: [{ ...line, [key]: '7' }] } }],
    ),
  ])('hashes %s', (_key, change) => {
    expect(snapshotHashOf({ ...base, ...change }, 4)).not.toBe(snapshotHashOf(base, 4));
  });
});
