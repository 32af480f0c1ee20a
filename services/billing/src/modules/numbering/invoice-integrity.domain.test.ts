import type { Invoice } from '@invoicing/contracts';
import { describe, expect, it } from 'vitest';
import { canonicalJson, chainHashOf, GENESIS_CHAIN, sha256Hex, snapshotHashOf } from './invoice-integrity.domain.ts';

const address = { line1: null, line2: null, city: 'Köln', state: null, postal_code: null, country: 'DE' };
const makeInvoice = (overrides: Partial<Invoice> = {}): Invoice => ({
  id: 'in_0190f3e2c1b27a8e9d1f3c4b5a697887',
  object: 'invoice',
  number: 'INV/2026/0001',
  status: 'open',
  customer: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887',
  customer_name: 'Müller GmbH',
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
  notes: null,
  footer: null,
  business_snapshot: { business_name: 'Seller', email: null, address, tax_id: 'DE1', payment_instructions: null, brand_color: null },
  customer_snapshot: { name: 'Müller GmbH', email: null, address, tax_id: null },
  public_url_token: 'tok',
  public_url: 'http://localhost:8080/i/tok',
  finalized_at: '2026-11-22T10:00:00.000Z',
  paid_at: null,
  payment_reference: null,
  voided_at: null,
  void_reason: null,
  snapshot_sha256: null,
  chain_sha256: null,
  created_at: '2026-11-22T09:00:00.000Z',
  updated_at: '2026-11-22T10:00:00.000Z',
  lines: { object: 'list', data: [] },
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
    expect(snapshotHashOf(makeInvoice({ customer_snapshot: { name: 'Other', email: null, address, tax_id: null } }))).not.toBe(open);
  });

  it('hashes a line discount in the shape of version 1 (both keys), whichever shape the API shows it in', () => {
    const line = {
      id: 'ii_0190f3e2c1b27a8e9d1f3c4b5a697887',
      object: 'invoiceitem' as const,
      price: null,
      product: null,
      description: 'Travel',
      quantity: 1,
      unit_amount: 1000,
      discount_amount: 100,
      tax_rate: 19,
      amount: 900,
      tax: 171,
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
});
