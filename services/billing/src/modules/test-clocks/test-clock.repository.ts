import { entityRows, newestFirstPage, nowPlus, type KeysetPosition } from '@invoicing/service-kit';
import { sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { TestClockEntity, type TestClockRow } from './test-clock.entity.ts';

const sqlIn = (em: EntityManager) => sqlOf<BillingDatabase>(em);

/**
 * An invoice's "now" in a statement that left-joins its test clock as `c`: the clock's time for an
 * invoice on one, else `realNow`. The sweeps compare due dates and reminder days with it.
 */
export const invoiceNowOnItsClock = (realNow: Date) => sql<Date>`coalesce(${sql.ref('c.frozen_time')}, cast(${realNow} as timestamptz))`;

export const testClockRepository = (em: EntityManager) => ({
  /** Written at the next flush. */
  add: (row: TestClockRow): TestClockRow => em.create(TestClockEntity, row),

  findInWorkspace: (workspaceId: string, id: string): Promise<TestClockRow | null> => em.findOne(TestClockEntity, { id, workspaceId }),

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<TestClockRow | null> =>
    tx.findOne(TestClockEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  pageNewestFirst: (workspaceId: string, position: KeysetPosition | undefined, limit: number): Promise<TestClockRow[]> =>
    newestFirstPage(em.createQueryBuilder(TestClockEntity).select('*').where({ workspaceId }), position, limit, 'created').getResultList(),

  /** The frozen time of each clock named, for reads of rows that live on clocks. */
  frozenTimesOf: async (ids: readonly string[]): Promise<Map<string, Date>> => {
    if (ids.length === 0) return new Map();
    const rows = await em.find(TestClockEntity, { id: { $in: [...new Set(ids)] } }, { fields: ['id', 'frozenTime'] });
    return new Map(rows.map((row) => [row.id, row.frozenTime]));
  },

  /** The frozen time of every clock of a space, by id (a test space has a few). */
  frozenTimesInWorkspace: async (workspaceId: string): Promise<Map<string, Date>> => {
    const rows = await em.find(TestClockEntity, { workspaceId }, { fields: ['id', 'frozenTime'] });
    return new Map(rows.map((row) => [row.id, row.frozenTime]));
  },

  /**
   * One advancing clock nobody steps (never claimed, or its holder's lease ran out), taken for
   * `leaseMs`: replicas take different clocks (SKIP LOCKED), and a clock whose stepper died is
   * taken over from its last committed step.
   */
  claimAdvancing: async (leaseMs: number): Promise<TestClockRow | undefined> => {
    const rows = await sqlIn(em)
      .with('due', (db) =>
        db
          .selectFrom('test_clocks')
          .select('id')
          .where('status', '=', sql.lit('advancing'))
          .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', sql<Date>`now()`)]))
          .orderBy('created')
          .limit(1)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('test_clocks as c')
      .set({ claimed_until: nowPlus(leaseMs, 'millisecond') })
      .from('due')
      .whereRef('c.id', '=', 'due.id')
      .returningAll('c')
      .execute();
    return (entityRows(em, TestClockEntity, rows) as TestClockRow[])[0];
  },

  /** The clock moves to `at` and its claim is renewed; false when it is no longer advancing (deleted). */
  moveTo: async (id: string, at: Date, leaseMs: number): Promise<boolean> => {
    const moved = await sqlIn(em)
      .updateTable('test_clocks')
      .set({ frozen_time: at, claimed_until: nowPlus(leaseMs, 'millisecond') })
      .where('id', '=', id)
      .where('status', '=', sql.lit('advancing'))
      .executeTakeFirst();
    return moved.numUpdatedRows > 0n;
  },

  /** The advance is done: ready at its target. */
  finish: async (id: string): Promise<void> => {
    await sqlIn(em).updateTable('test_clocks').set({ status: sql.lit('ready'), advance_to: null, claimed_until: null }).where('id', '=', id).execute();
  },

  /** The claim is given back at once (a step failed): the next pass takes the clock again from its frozen time. */
  release: async (id: string): Promise<void> => {
    await sqlIn(em).updateTable('test_clocks').set({ claimed_until: null }).where('id', '=', id).execute();
  },

  /**
   * Inside `tx`, the clock and billing's data of its customers: their invoices (with their lines,
   * timeline and supporting documents, which cascade), payments and messages.
   */
  removeWithData: async (tx: EntityManager, workspaceId: string, id: string): Promise<void> => {
    const ofClock = sqlIn(tx).selectFrom('invoices').select('id').where('workspace_id', '=', workspaceId).where('test_clock_id', '=', id);
    await sqlIn(tx).deleteFrom('payments').where('invoice_id', 'in', ofClock).execute();
    await sqlIn(tx).deleteFrom('messages').where('invoice_id', 'in', ofClock).execute();
    await sqlIn(tx).deleteFrom('invoices').where('workspace_id', '=', workspaceId).where('test_clock_id', '=', id).execute();
    await sqlIn(tx).deleteFrom('test_clocks').where('workspace_id', '=', workspaceId).where('id', '=', id).execute();
  },
});

export type TestClockRepository = ReturnType<typeof testClockRepository>;
