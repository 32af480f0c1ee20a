import { newestFirstPage, type KeysetPosition } from '@invoicing/service-kit';
import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import type { OpenInvoiceKeys } from './remittance-matching.domain.ts';
import { BankStatementEntity, BankStatementEntryEntity, type BankStatementEntryRow, type BankStatementRow } from './bank-statement.entity.ts';

const ENTRY_COLUMNS = [
  'id',
  'statement_id',
  'workspace_id',
  'position',
  'booking_date',
  'amount',
  'currency',
  'credit_debit',
  'remittance_information',
  'counterparty_name',
  'bank_reference',
  'status',
  'invoice_id',
  'payment_id',
  'dedup_key',
] as const;

/**
 * Entries as one jsonb parameter read as the table `v` (`jsonb_to_recordset`): one parameter for
 * any number of them, where a statement of 10,000 entries would pass the 65,535 parameters a
 * PostgreSQL statement may have as a list of values.
 */
const entriesRecordset = (em: EntityManager, rows: readonly BankStatementEntryRow[]) =>
  sql`jsonb_to_recordset(${JSON.stringify(rows.map((row) => entityColumns(em, BankStatementEntryEntity, row)))}::jsonb)`.as<'v'>(
    sql`${sql.ref('v')}(id uuid, statement_id uuid, workspace_id uuid, position integer, booking_date date, amount bigint, currency char(3), credit_debit text, remittance_information text, counterparty_name text, bank_reference text, status text, invoice_id uuid, payment_id uuid, dedup_key text)`,
  );

export const bankStatementRepository = (em: EntityManager) => ({
  /**
   * Inside `tx`, inserts the entries that count (credits booked), each only if no entry of the
   * workspace holds its duplicate key yet: one statement, in the order of the keys, so two imports
   * of overlapping statements take the keys they share in the same order and never deadlock. An
   * import that commits the same key first makes this one wait, then skip it. Answers the IDs
   * inserted: the others are duplicates.
   */
  claimEntries: async (tx: EntityManager, rows: readonly BankStatementEntryRow[]): Promise<Set<string>> => {
    if (rows.length === 0) return new Set();
    const inserted = await sqlOf<BillingDatabase>(tx)
      .insertInto('bank_statement_entries')
      .columns([...ENTRY_COLUMNS])
      .expression((eb) => eb.selectFrom(entriesRecordset(tx, rows)).selectAll('v' as never) as never)
      .onConflict((oc) => oc.columns(['workspace_id', 'dedup_key']).doNothing())
      .returning('id')
      .execute();
    return new Set(inserted.map(({ id }) => id));
  },

  /** Inside `tx`, entries that claim nothing (duplicates, debits): one statement. */
  insertEntries: async (tx: EntityManager, rows: readonly BankStatementEntryRow[]): Promise<void> => {
    if (rows.length === 0) return;
    await sqlOf<BillingDatabase>(tx)
      .insertInto('bank_statement_entries')
      .columns([...ENTRY_COLUMNS])
      .expression((eb) => eb.selectFrom(entriesRecordset(tx, rows)).selectAll('v' as never) as never)
      .execute();
  },

  /** Inside `tx`, entries matched: each with its invoice and payment, in one statement. */
  markMatched: async (tx: EntityManager, workspaceId: string, matches: readonly { id: string; invoiceId: string; paymentId: string }[]): Promise<void> => {
    if (matches.length === 0) return;
    await sqlOf<BillingDatabase>(tx)
      .updateTable('bank_statement_entries')
      .from(sql`jsonb_to_recordset(${JSON.stringify(matches)}::jsonb)`.as<'m'>(sql`${sql.ref('m')}("id" uuid, "invoiceId" uuid, "paymentId" uuid)`))
      .set({ status: sql.lit('matched'), invoice_id: sql.ref('m.invoiceId'), payment_id: sql.ref('m.paymentId') } as never)
      .whereRef('bank_statement_entries.id', '=', sql.ref('m.id') as never)
      .where('bank_statement_entries.workspace_id', '=', workspaceId)
      .execute();
  },

  insertStatement: async (tx: EntityManager, row: BankStatementRow): Promise<void> => {
    await sqlOf<BillingDatabase>(tx).insertInto('bank_statements').values(entityColumns(tx, BankStatementEntity, row)).execute();
  },

  /** Inside `tx`, one entry more matched and one fewer unmatched on the statement. */
  countManualMatch: async (tx: EntityManager, statementId: string): Promise<void> => {
    await sqlOf<BillingDatabase>(tx)
      .updateTable('bank_statements')
      .set((eb) => ({ matched_count: eb('matched_count', '+', 1), unmatched_count: eb('unmatched_count', '-', 1) }))
      .where('id', '=', statementId)
      .execute();
  },

  /** The numbers and remittance references of the workspace's open (and overdue) invoices: what a transfer may name. */
  openInvoiceKeys: async (tx: EntityManager, workspaceId: string): Promise<OpenInvoiceKeys[]> =>
    (
      await sqlOf<BillingDatabase>(tx)
        .selectFrom('invoices')
        .select(['id', 'number', 'remittance_reference'])
        .where('workspace_id', '=', workspaceId)
        .where('status', '=', sql.lit('open'))
        .execute()
    ).map((row) => ({ id: row.id, number: row.number, remittanceReference: row.remittance_reference })),

  findInWorkspace: (workspaceId: string, id: string): Promise<BankStatementRow | null> => em.findOne(BankStatementEntity, { id, workspaceId }),

  entriesOf: (statementId: string): Promise<BankStatementEntryRow[]> => em.find(BankStatementEntryEntity, { statementId }, { orderBy: { position: 'asc' } }),

  /** Inside `tx`, an entry of a statement, locked until `tx` ends. */
  lockEntry: (tx: EntityManager, workspaceId: string, statementId: string, id: string): Promise<BankStatementEntryRow | null> =>
    tx.findOne(BankStatementEntryEntity, { id, statementId, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE, disableIdentityMap: true }),

  /** `limit + 1` statements, newest first, after `position`. */
  pageNewestFirst: (workspaceId: string, position: KeysetPosition | undefined, limit: number): Promise<BankStatementRow[]> =>
    newestFirstPage(em.createQueryBuilder(BankStatementEntity).select('*').where({ workspaceId }), position, limit, 'createdAt').getResultList(),
});

export type BankStatementRepository = ReturnType<typeof bankStatementRepository>;
