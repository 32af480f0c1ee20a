import { describe, expect, it } from 'vitest';
import { indexInvoices, invoicesNamedIn, normalizedReference } from './remittance-matching.domain.ts';

const index = indexInvoices([
  { id: 'a', number: 'INV/2026/0001', remittanceReference: 'RF16INV20260001' },
  { id: 'b', number: 'INV/2026/0002', remittanceReference: 'RF86INV20260002' },
  { id: 'c', number: '2026-0417', remittanceReference: 'RF2420260417' },
  { id: 'd', number: 'INV/2026/0012', remittanceReference: null },
]);

describe('invoicesNamedIn', () => {
  it.each([
    ['INV/2026/0001', ['a']],
    ['Rechnung inv 2026 0001 danke', ['a']],
    ['INV20260001', ['a']],
    ['inv-2026-0001', ['a']],
    ['RF16 INV2 0260 001', ['a']],
    ['rf16inv20260001', ['a']],
    ['Invoice 2026-0417, customer 42', ['c']],
    ['RF24 2026 0417', ['c']],
    // Two invoices named: ambiguous, the caller matches neither.
    ['INV/2026/0001 + INV/2026/0002', ['a', 'b']],
    // A digit running on: another number, not this one.
    ['INV/2026/00012', []],
    ['INV/2026/0012', ['d']],
    ['12026-04170', []],
    ['Thank you', []],
    ['', []],
  ])('%s → %j', (remittance, ids) => {
    expect([...invoicesNamedIn(index, remittance)].sort()).toEqual(ids);
  });

  it('normalizes to letters and digits in upper case', () => {
    expect(normalizedReference(' inv / 2026 – 0001 ')).toBe('INV20260001');
  });

  it('ignores keys too short to tell apart from other text', () => {
    expect([...invoicesNamedIn(indexInvoices([{ id: 'x', number: '7', remittanceReference: null }]), 'Order 7')]).toEqual([]);
  });
});
