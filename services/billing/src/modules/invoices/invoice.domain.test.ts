import { AppError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import type { StoredStatus } from './invoice.entity.ts';
import { UpdateInvoiceBody } from '@invoicing/contracts';
import { makeLine } from '../../../test/support/rows.ts';
import { changesAnything, draftChanges, isPricedByCurrentRule, newDraft, priceAgain, transition, type StatusChange } from './invoice.domain.ts';

const at = { now: new Date('2026-11-22T10:00:00.000Z'), today: '2026-11-22' };
const invoice = (status: StoredStatus) => ({ status, total: 11_900 });

/** The code of the refusal, or the status the change leads to, or `unchanged`. */
const outcome = (status: StoredStatus, change: StatusChange): string => {
  try {
    const columns = change.to === 'open' ? transition(invoice(status), change, at) : transition(invoice(status), change, at);
    return columns ? columns.status : 'unchanged';
  } catch (error) {
    if (error instanceof AppError) return error.code;
    throw error;
  }
};

describe('transition', () => {
  it.each([
    ['draft', 'open', 'open'],
    ['open', 'open', 'unchanged'],
    ['paid', 'open', 'invalid_state'],
    ['void', 'open', 'invalid_state'],
    ['draft', 'paid', 'invalid_state'],
    ['open', 'paid', 'paid'],
    ['paid', 'paid', 'invalid_state'],
    ['void', 'paid', 'invalid_state'],
    ['draft', 'void', 'invalid_state'],
    ['open', 'void', 'void'],
    ['paid', 'void', 'invalid_state'],
    ['void', 'void', 'invalid_state'],
  ] as const)('%s → %s: %s', (from, to, expected) => {
    expect(outcome(from, { to })).toBe(expected);
  });

  it('finalize makes the whole total due', () => {
    expect(transition(invoice('draft'), { to: 'open' }, at)).toEqual({ status: 'open', amountDue: 11_900, finalizedAt: at.now, updatedAt: at.now });
  });

  it('pay settles the total: paid on a date is midnight UTC of it; the future is a 400', () => {
    expect(transition(invoice('open'), { to: 'paid', paidOn: '2026-11-20', paymentReference: 'wire 42' }, at)).toEqual({
      status: 'paid',
      paidAt: new Date('2026-11-20T00:00:00.000Z'),
      paymentReference: 'wire 42',
      amountPaid: 11_900,
      amountDue: 0,
      updatedAt: at.now,
    });
    expect(transition(invoice('open'), { to: 'paid' }, at)).toMatchObject({ paidAt: at.now, paymentReference: null });
    expect(outcome('open', { to: 'paid', paidOn: '2026-11-23' })).toBe('invalid_request');
  });

  it('void leaves nothing due and keeps the reason', () => {
    expect(transition(invoice('open'), { to: 'void', reason: 'duplicate' }, at)).toEqual({ status: 'void', voidedAt: at.now, voidReason: 'duplicate', amountDue: 0, updatedAt: at.now });
  });
});

describe('draftChanges', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  const draft = {
    ...newDraft('00000000-0000-4000-8000-000000000001', { customer: '00000000-0000-4000-8000-000000000002', items: [], days_until_due: 14 }, {
      customerName: 'Müller GmbH',
      currency: 'EUR',
      today: '2026-11-22',
      now,
    }),
  };
  const totals = { subtotal: 100, discountTotal: 0, allowanceTotal: 0, chargeTotal: 0, taxableAmount: 100, taxTotal: 19, total: 119 };
  const sut = (patch: UpdateInvoiceBody, customer?: { name: string }) => draftChanges(draft, patch, { customer, totals });

  it('sets only what was sent, besides the dates and totals every PATCH recomputes', () => {
    expect(sut({ notes: 'Thanks' })).toEqual({ currency: 'EUR', issueDate: '2026-11-22', dueDate: '2026-12-06', daysUntilDue: 14, notes: 'Thanks', ...totals });
  });

  it('moves a due date that days_until_due set with the issue date, and keeps one that was sent', () => {
    expect(sut({ issue_date: '2026-12-01' })).toMatchObject({ issueDate: '2026-12-01', dueDate: '2026-12-15', daysUntilDue: 14 });
    expect(sut({ due_date: '2026-12-24' })).toMatchObject({ dueDate: '2026-12-24', daysUntilDue: null });
  });

  it('takes a new customer with its name', () => {
    expect(sut({ customer: '00000000-0000-4000-8000-000000000003' }, { name: 'Schmidt AG' })).toMatchObject({
      customerId: '00000000-0000-4000-8000-000000000003',
      customerName: 'Schmidt AG',
    });
  });

  it.each([
    ['open', 'invalid_state'],
    ['paid', 'invalid_state'],
  ] as const)('refuses a %s invoice: %s', (status, code) => {
    expect(() => draftChanges({ ...draft, status }, {}, { customer: undefined, totals })).toThrow(expect.objectContaining({ code }));
  });

  it('refuses a due date before the issue date, on the field the request moved', () => {
    expect(() => sut({ due_date: '2026-11-01' })).toThrow(expect.objectContaining({ code: 'invalid_request', errors: [expect.objectContaining({ path: 'due_date' })] }));
  });

  it('sets payment means, payee and preceding invoice with every field of their shapes; null removes, [] empties', () => {
    const parsed = UpdateInvoiceBody.parse({
      payment_means: [{ type: 'credit_transfer', iban: 'DE89 3704 0044 0532 0130 00', information: 'SEPA' }],
      payee: { name: 'Factoring GmbH' },
      preceding_invoice: { number: 'INV/2026/0001' },
    });
    expect(sut(parsed)).toMatchObject({
      paymentMeans: [{ type: 'credit_transfer', information: 'SEPA', iban: 'DE89370400440532013000', bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null }],
      payee: { name: 'Factoring GmbH', identifier: null, legal_registration_id: null },
      precedingInvoice: { number: 'INV/2026/0001', issue_date: null },
    });
    expect(sut({ payment_means: [], payee: null, preceding_invoice: null })).toMatchObject({ paymentMeans: [], payee: null, precedingInvoice: null });
    expect(sut({ notes: 'x' })).not.toHaveProperty('paymentMeans');
  });
});

describe('changesAnything', () => {
  const now = new Date('2026-11-22T10:00:00.000Z');
  const stored = {
    ...newDraft('00000000-0000-4000-8000-000000000001', { customer: '00000000-0000-4000-8000-000000000002', items: [] }, { customerName: 'M', currency: 'EUR', today: '2026-11-22', now }),
    payee: { name: 'Factoring GmbH', identifier: null, legal_registration_id: null },
  };

  it('compares JSON columns by content, whatever their key order', () => {
    expect(changesAnything(stored, { payee: { legal_registration_id: null, identifier: null, name: 'Factoring GmbH' }, paymentMeans: [] })).toBe(false);
    expect(changesAnything(stored, { payee: { name: 'Other', identifier: null, legal_registration_id: null } })).toBe(true);
    expect(changesAnything(stored, { precedingInvoice: { number: 'A', issue_date: null } })).toBe(true);
  });
});

describe('priceAgain', () => {
  const line = (tax: number) => makeLine({ tax });

  it('gives stored lines the tax of the current rule, and the totals', () => {
    const priced = priceAgain([line(0)], { allowances: [], charges: [] });
    expect(priced.lines.map((each) => each.tax)).toEqual([1_900]);
    expect(priced.totals).toMatchObject({ taxTotal: 1_900, total: 11_900 });
    expect(isPricedByCurrentRule({ taxTotal: 1_900, allowances: [], charges: [] }, [line(0)])).toBe(false);
    expect(isPricedByCurrentRule({ taxTotal: 1_900, allowances: [], charges: [] }, priced.lines)).toBe(true);
  });
});
