import { AppError } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import type { StoredStatus } from './invoice.entity.ts';
import { transition, type StatusChange } from './invoice.domain.ts';

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
