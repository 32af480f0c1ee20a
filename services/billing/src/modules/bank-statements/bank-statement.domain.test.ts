import { describe, expect, it } from 'vitest';
import { duplicateKeyOf, duplicateKeysOf } from './bank-statement.domain.ts';
import type { StatementTransaction } from './camt.domain.ts';

const credit = (overrides: Partial<StatementTransaction> = {}): StatementTransaction => ({
  accountIban: 'NL77ABNA0574908765',
  bookingDate: '2026-11-20',
  amount: 100,
  currency: 'EUR',
  creditDebit: 'credit',
  booked: true,
  reversal: false,
  remittanceInformation: 'RF18539007547034',
  counterpartyName: 'NAAM',
  bankReference: '3095D4322561460S0PS',
  ...overrides,
});

describe('duplicateKeysOf', () => {
  it('keeps the key of a credit without a rank, as keys were always written', () => {
    expect(duplicateKeysOf([credit()])).toEqual([JSON.stringify(['ref', 'NL77ABNA0574908765', '3095D4322561460S0PS'])]);
  });

  it('ranks credits of one document that share a bank reference (a batch repeating its reference), so each claims a key of its own', () => {
    const keys = duplicateKeysOf([credit(), credit({ amount: 200 }), credit({ amount: 300, bankReference: 'OTHER' }), credit({ amount: 400 })]);
    expect(keys).toEqual([
      duplicateKeyOf(credit()),
      JSON.stringify(['ref', 'NL77ABNA0574908765', '3095D4322561460S0PS', 2]),
      duplicateKeyOf(credit({ bankReference: 'OTHER' })),
      JSON.stringify(['ref', 'NL77ABNA0574908765', '3095D4322561460S0PS', 3]),
    ]);
    expect(new Set(keys).size).toBe(4);
  });

  it('ranks equal credits without a reference the same way, and gives the same document the same keys again', () => {
    const day = [credit({ bankReference: null }), credit({ bankReference: null }), credit({ bankReference: null, amount: 5 })];
    const keys = duplicateKeysOf(day);
    expect(new Set(keys).size).toBe(3);
    expect(duplicateKeysOf(day)).toEqual(keys);
  });

  it('gives debits, entries not booked and reversals no key, and does not count them among equal credits', () => {
    expect(duplicateKeysOf([credit({ creditDebit: 'debit' }), credit({ booked: false }), credit({ reversal: true }), credit()])).toEqual([null, null, null, duplicateKeyOf(credit())]);
  });
});
