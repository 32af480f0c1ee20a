import { dataSpaceOf } from '@invoicing/service-kit/data-space';
import { describe, expect, it } from 'vitest';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { isWellFormedToken, publicPageContentOf, statusOf } from './public-page.domain.ts';

describe('the status line of the public page', () => {
  it.each([
    [{ status: 'open', due_date: '2026-12-20' }, { label: 'Open', detail: 'Due 20 Dec 2026', amountLabel: 'Amount due', amount: 'US$10.00' }],
    [{ status: 'open', due_date: null }, { label: 'Open', detail: 'Due on receipt', amountLabel: 'Amount due', amount: 'US$10.00' }],
    [{ status: 'overdue', due_date: '2026-12-20' }, { label: 'Overdue', detail: 'Was due 20 Dec 2026', amountLabel: 'Amount due', amount: 'US$10.00' }],
    [{ status: 'paid', amount_due: 0, amount_paid: 1000, paid_at: '2026-12-21T00:00:00.000Z' }, { label: 'Paid', detail: 'Paid on 21 Dec 2026', amountLabel: 'Amount paid', amount: 'US$10.00' }],
    [{ status: 'void', amount_due: 0, voided_at: '2026-12-22T08:00:00.000Z' }, { label: 'Void', detail: 'Voided on 22 Dec 2026: nothing is due.', amountLabel: 'Amount due', amount: 'US$0.00' }],
  ] as const)('%o reads %o', (change, expected) => {
    const invoice = { ...makeInvoice({ currency: 'USD', lineInputs: [{ description: 'x', unit_amount: 1000 }] }), ...change };
    expect(statusOf(invoice)).toMatchObject(expected);
  });

  it('speaks the invoice\'s language', () => {
    const invoice = { ...makeInvoice({ locale: 'nl', lineInputs: [{ description: 'x', unit_amount: 1000 }] }), status: 'overdue' as const };
    expect(statusOf(invoice)).toMatchObject({ label: 'Achterstallig', detail: 'Vervallen op 20 dec 2026', amountLabel: 'Te betalen bedrag', amount: '€\u00a010,00' });
  });
});

describe('the test mode marker of the public page', () => {
  const workspace = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
  const open = (locale: 'en' | 'de') => ({ ...makeInvoice({ locale, lineInputs: [{ description: 'x', unit_amount: 1000 }] }), status: 'open' as const });

  it('marks an invoice of the workspace\'s test data, in the invoice\'s language', () => {
    expect(publicPageContentOf(open('en'), dataSpaceOf(workspace, 'test')).testMode).toBe('Test mode: made with a test key, this is not a real invoice.');
    expect(publicPageContentOf(open('de'), dataSpaceOf(workspace, 'test')).testMode).toMatch(/^Testmodus/);
  });

  it('leaves a live invoice unmarked', () => {
    expect(publicPageContentOf(open('en'), workspace).testMode).toBeNull();
  });
});

describe('public tokens', () => {
  it.each([
    ['Zm9vYmFyYmF6cXV4cXV1eHh5eno0MjQy', true],
    ['abc', false],
    ['has space in it and is long enough', false],
    ['../../../../etc/passwd/whatever', false],
  ])('%s is well formed: %s', (token, expected) => {
    expect(isWellFormedToken(token)).toBe(expected);
  });
});
