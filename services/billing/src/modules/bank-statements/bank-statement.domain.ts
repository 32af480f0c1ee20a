import { toPublicId, type BankStatement, type BankStatementEntry, type BankStatementSummary } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit/ids';
import type { BankStatementEntryRow, BankStatementRow } from './bank-statement.entity.ts';
import type { ParsedStatement, StatementTransaction } from './camt.domain.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

const collapsed = (text: string | null): string => (text ?? '').replace(/\s+/g, ' ').trim();

/**
 * The key by which a credit is known across imports (decisions.md): the account and the bank's
 * reference of the transaction; without one, the account, booking date, amount, currency and
 * remittance information. Two imports of the same statement, or of overlapping ones, give its
 * credits the same keys.
 *
 * Within one document a bank may give several transactions the same reference: ABN AMRO's
 * statements repeat a batch's `AcctSvcrRef` on every transaction of the batch (and on a single
 * transfer of the same run), and two equal transfers of a day without references have equal
 * keys. They are different money, not a transfer imported before: the second and later ones of a
 * document add their rank among them (`occurrence`), so each claims a key of its own, and the
 * same document imported again gives each the same key once more. The first keeps the key
 * without a rank, as keys have always been written.
 */
export const duplicateKeyOf = (transaction: StatementTransaction, occurrence = 1): string => {
  const key: unknown[] =
    transaction.bankReference !== null
      ? ['ref', transaction.accountIban, transaction.bankReference]
      : ['booking', transaction.accountIban, transaction.bookingDate, transaction.amount, transaction.currency, collapsed(transaction.remittanceInformation)];
  return JSON.stringify(occurrence === 1 ? key : [...key, occurrence]);
};

/** Whether a transaction is money received: a booked credit that reverses nothing. Debits, pending entries and reversals are ignored, on every import. */
export const isMoneyReceived = (transaction: StatementTransaction): boolean => transaction.creditDebit === 'credit' && transaction.booked && !transaction.reversal;

/** Each transaction's duplicate key in document order (null for what is not money received), ranked among equal keys of the document. */
export const duplicateKeysOf = (transactions: readonly StatementTransaction[]): (string | null)[] => {
  const seen = new Map<string, number>();
  return transactions.map((transaction) => {
    if (!isMoneyReceived(transaction)) return null;
    const first = duplicateKeyOf(transaction);
    const occurrence = (seen.get(first) ?? 0) + 1;
    seen.set(first, occurrence);
    return occurrence === 1 ? first : duplicateKeyOf(transaction, occurrence);
  });
};

/** The entries of a statement as first written: credits `unmatched` with their duplicate key, the rest `ignored`. */
export const entryRowsOf = (statementId: string, workspaceId: string, parsed: ParsedStatement): BankStatementEntryRow[] => {
  const keys = duplicateKeysOf(parsed.transactions);
  return parsed.transactions.map((transaction, position) => ({
    id: newId(),
    statementId,
    workspaceId,
    position,
    bookingDate: transaction.bookingDate,
    amount: transaction.amount,
    currency: transaction.currency,
    creditDebit: transaction.creditDebit,
    remittanceInformation: transaction.remittanceInformation,
    counterpartyName: transaction.counterpartyName,
    bankReference: transaction.bankReference,
    status: keys[position] != null ? 'unmatched' : 'ignored',
    invoiceId: null,
    paymentId: null,
    dedupKey: keys[position] ?? null,
  }));
};

/** An entry whose duplicate key an earlier import holds: recorded, counted nowhere, paying nothing. */
export const asDuplicate = (row: BankStatementEntryRow): BankStatementEntryRow => ({ ...row, status: 'duplicate', dedupKey: null });

export const entryView = (row: BankStatementEntryRow): BankStatementEntry => ({
  id: toPublicId('bankStatementEntry', row.id),
  object: 'bank_statement_entry',
  livemode: livemodeOf(row.workspaceId),
  booking_date: row.bookingDate ?? null,
  amount: row.amount,
  currency: row.currency,
  credit_debit: row.creditDebit,
  remittance_information: row.remittanceInformation ?? null,
  counterparty_name: row.counterpartyName ?? null,
  bank_reference: row.bankReference ?? null,
  status: row.status,
  invoice: row.invoiceId ? toPublicId('invoice', row.invoiceId) : null,
  payment: row.paymentId ? toPublicId('payment', row.paymentId) : null,
});

export const statementSummaryView = (row: BankStatementRow): BankStatementSummary => ({
  id: toPublicId('bankStatement', row.id),
  object: 'bank_statement',
  livemode: livemodeOf(row.workspaceId),
  account_iban: row.accountIban ?? null,
  from: row.fromDate ?? null,
  to: row.toDate ?? null,
  matched_count: row.matchedCount,
  unmatched_count: row.unmatchedCount,
  created: row.createdAt.toISOString(),
});

export const statementView = (row: BankStatementRow, entries: readonly BankStatementEntryRow[]): BankStatement => ({
  ...statementSummaryView(row),
  entries: { object: 'list', data: entries.map(entryView) },
});
