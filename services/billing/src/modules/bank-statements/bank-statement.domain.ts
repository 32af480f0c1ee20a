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
 */
export const duplicateKeyOf = (transaction: StatementTransaction): string =>
  transaction.bankReference !== null
    ? JSON.stringify(['ref', transaction.accountIban, transaction.bankReference])
    : JSON.stringify(['booking', transaction.accountIban, transaction.bookingDate, transaction.amount, transaction.currency, collapsed(transaction.remittanceInformation)]);

/** Whether a transaction is money received: a booked credit. Debits (and pending entries) are ignored, on every import. */
export const isMoneyReceived = (transaction: StatementTransaction): boolean => transaction.creditDebit === 'credit' && transaction.booked;

/** The entries of a statement as first written: credits `unmatched` with their duplicate key, the rest `ignored`. */
export const entryRowsOf = (statementId: string, workspaceId: string, parsed: ParsedStatement): BankStatementEntryRow[] =>
  parsed.transactions.map((transaction, position) => ({
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
    status: isMoneyReceived(transaction) ? 'unmatched' : 'ignored',
    invoiceId: null,
    paymentId: null,
    dedupKey: isMoneyReceived(transaction) ? duplicateKeyOf(transaction) : null,
  }));

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
