import { BANK_STATEMENT_ENTRY_STATUSES, type BankStatementEntryStatus } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const BankStatementEntity = defineEntity({
  name: 'BankStatement',
  tableName: 'bank_statements',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    accountIban: p.text().nullable(),
    fromDate: p.date().nullable(),
    toDate: p.date().nullable(),
    matchedCount: p.integer(),
    unmatchedCount: p.integer(),
    createdAt: p.datetime(3),
  },
});
export type BankStatementRow = InferEntity<typeof BankStatementEntity>;

export const BankStatementEntryEntity = defineEntity({
  name: 'BankStatementEntry',
  tableName: 'bank_statement_entries',
  properties: {
    id: p.uuid().primary(),
    statementId: p.uuid(),
    workspaceId: p.uuid(),
    position: p.integer(),
    bookingDate: p.date().nullable(),
    amount: p.bigint('number'),
    currency: p.string().length(3),
    creditDebit: p.enum<readonly ('credit' | 'debit')[]>(['credit', 'debit']),
    remittanceInformation: p.text().nullable(),
    counterpartyName: p.text().nullable(),
    bankReference: p.text().nullable(),
    status: p.enum<readonly BankStatementEntryStatus[]>(BANK_STATEMENT_ENTRY_STATUSES),
    invoiceId: p.uuid().nullable(),
    paymentId: p.uuid().nullable(),
    /** The key a counted credit claims across imports; null for duplicates and debits. */
    dedupKey: p.text().nullable(),
  },
});
export type BankStatementEntryRow = InferEntity<typeof BankStatementEntryEntity>;
