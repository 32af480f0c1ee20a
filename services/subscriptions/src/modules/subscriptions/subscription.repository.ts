import type { Metadata } from '@invoicing/contracts';
import { entityColumns, entityRows, newestFirstPage, sqlOf, whereMetadataHolds, type KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { SubscriptionsDatabase } from '../../database.ts';
import {
  SubscriptionEntity,
  SubscriptionItemEntity,
  SubscriptionPeriodEntity,
  type SubscriptionItemRow,
  type SubscriptionPeriodRow,
  type SubscriptionRow,
} from './subscription.entity.ts';

export interface SubscriptionFilter {
  customerId?: string | undefined;
  status?: SubscriptionRow['status'] | undefined;
  /** Pairs every subscription's metadata must hold. */
  metadata?: Metadata | undefined;
}

export const subscriptionRepository = (em: EntityManager) => ({
  /** The row with this id in the workspace; another workspace's is as missing as an unknown id. */
  findInWorkspace: (workspaceId: string, id: string): Promise<SubscriptionRow | null> => em.findOne(SubscriptionEntity, { id, workspaceId }),

  /** The row locked for a change in `tx`; another workspace's is missing. */
  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<SubscriptionRow | null> =>
    tx.findOne(SubscriptionEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  /** Every item list of the subscription, the ones waiting for a later period included. */
  itemsOf: (subscriptionId: string): Promise<SubscriptionItemRow[]> =>
    em.find(SubscriptionItemEntity, { subscriptionId }, { orderBy: { effectiveFrom: 'asc', position: 'asc' } }),

  /** The items of several subscriptions at once, by subscription. */
  itemsOfEach: async (subscriptionIds: readonly string[]): Promise<Map<string, SubscriptionItemRow[]>> => {
    const byId = new Map<string, SubscriptionItemRow[]>(subscriptionIds.map((id) => [id, []]));
    if (subscriptionIds.length === 0) return byId;
    const rows = await em.find(SubscriptionItemEntity, { subscriptionId: { $in: [...subscriptionIds] } }, { orderBy: { effectiveFrom: 'asc', position: 'asc' } });
    for (const row of rows) byId.get(row.subscriptionId)?.push(row);
    return byId;
  },

  pageNewestFirst: (workspaceId: string, filter: SubscriptionFilter, position: KeysetPosition | undefined, limit: number): Promise<SubscriptionRow[]> => {
    const qb = em.createQueryBuilder(SubscriptionEntity).select('*').where({ workspaceId });
    if (filter.customerId !== undefined) qb.andWhere({ customerId: filter.customerId });
    if (filter.status !== undefined) qb.andWhere({ status: filter.status });
    whereMetadataHolds(qb, filter.metadata);
    return newestFirstPage(qb, position, limit, 'createdAt').getResultList();
  },

  /** A new subscription with its first items, in `tx`. */
  add: (tx: EntityManager, row: SubscriptionRow, items: readonly SubscriptionItemRow[]): void => {
    tx.create(SubscriptionEntity, row);
    for (const item of items) tx.create(SubscriptionItemEntity, item);
  },

  /** Replaces the list in force from `effectiveFrom` on (and any set for later), in `tx`. */
  replaceItemsFrom: async (tx: EntityManager, subscriptionId: string, effectiveFrom: string, items: readonly SubscriptionItemRow[]): Promise<void> => {
    await tx.nativeDelete(SubscriptionItemEntity, { subscriptionId, effectiveFrom: { $gte: effectiveFrom } });
    for (const item of items) tx.create(SubscriptionItemEntity, item);
  },

  /**
   * Claims the subscriptions with something due by `dueBy` and no live claim, for `leaseMs`: one
   * statement, whose `for update skip locked` lets replicas claim side by side without ever claiming
   * one twice; a replica that dies frees its claims when the lease ends (leases run in real time,
   * `now`). Without `testClock`, up to `limit` of those that move with real time (due by `now`);
   * with it, every one of that test clock's, due by the clock's time.
   */
  claimDue: async ({ dueBy, now, leaseMs, limit, testClock }: { dueBy: Date; now: Date; leaseMs: number; limit?: number; testClock?: { workspaceId: string; id: string } }): Promise<SubscriptionRow[]> => {
    const rows = await sqlOf<SubscriptionsDatabase>(em)
      .updateTable('subscriptions')
      .set({ claimed_until: new Date(now.getTime() + leaseMs) })
      .where('id', 'in', (eb) =>
        eb
          .selectFrom('subscriptions')
          .select('id')
          .$if(testClock === undefined, (query) => query.where('test_clock_id', 'is', null))
          .$if(testClock !== undefined, (query) => query.where('workspace_id', '=', testClock!.workspaceId).where('test_clock_id', '=', testClock!.id))
          .where('next_action_at', '<=', dueBy)
          .where((w) => w.or([w('claimed_until', 'is', null), w('claimed_until', '<', now)]))
          .orderBy('next_action_at')
          .$if(limit !== undefined, (query) => query.limit(limit!))
          .forUpdate()
          .skipLocked(),
      )
      .returningAll()
      .execute();
    return entityRows(em, SubscriptionEntity, rows);
  },

  /** Deletes the subscriptions of a deleted test clock (their items and periods cascade); returns how many. */
  removeOfTestClock: (workspaceId: string, testClockId: string): Promise<number> => em.nativeDelete(SubscriptionEntity, { workspaceId, testClockId }),

  /** Gives a claimed subscription back: free at once, or held until `until` (a refusal to wait out). */
  release: async (id: string, until: Date | null, lastError: string | null): Promise<void> => {
    await sqlOf<SubscriptionsDatabase>(em).updateTable('subscriptions').set({ claimed_until: until, last_error: lastError }).where('id', '=', id).execute();
  },

  /**
   * The request of one period as first stored: stored now if none was, so that every retry, on
   * any replica, sends the very body the first attempt sent (billing compares it with the key's).
   */
  periodRequest: async (period: SubscriptionPeriodRow): Promise<SubscriptionPeriodRow> => {
    const rows = await sqlOf<SubscriptionsDatabase>(em)
      .with('inserted', (db) =>
        db
          .insertInto('subscription_periods')
          .values(entityColumns(em, SubscriptionPeriodEntity, period))
          .onConflict((oc) => oc.columns(['subscription_id', 'period_start']).doNothing())
          .returningAll(),
      )
      .selectFrom('inserted')
      .selectAll()
      .unionAll((db) =>
        db
          .selectFrom('subscription_periods')
          .selectAll()
          .where('subscription_id', '=', period.subscriptionId)
          .where('period_start', '=', period.periodStart),
      )
      .execute();
    return entityRows(em, SubscriptionPeriodEntity, rows)[0]!;
  },

  /** The periods invoiced of one subscription, oldest first. */
  periodsOf: (subscriptionId: string): Promise<SubscriptionPeriodRow[]> => em.find(SubscriptionPeriodEntity, { subscriptionId }, { orderBy: { periodStart: 'asc' } }),

  /**
   * Records period `index`'s invoice and moves the subscription past it, in `tx`; only while the
   * subscription still stands at that period (false otherwise: another change came first).
   */
  completePeriod: async (
    tx: EntityManager,
    done: { subscriptionId: string; periodStart: string; invoiceId: string | null; finalized: boolean; index: number },
    next: Pick<SubscriptionRow, 'nextActionAt' | 'updatedAt'>,
  ): Promise<boolean> => {
    const db = sqlOf<SubscriptionsDatabase>(tx);
    const moved = await db
      .updateTable('subscriptions')
      .set({ periods_invoiced: done.index + 1, next_action_at: next.nextActionAt, updated_at: next.updatedAt, last_error: null })
      .where('id', '=', done.subscriptionId)
      .where('periods_invoiced', '=', done.index)
      .where('status', '=', 'active')
      .executeTakeFirst();
    if (Number(moved.numUpdatedRows) !== 1) return false;
    await db
      .updateTable('subscription_periods')
      .set({ invoice_id: done.invoiceId, finalized: done.finalized })
      .where('subscription_id', '=', done.subscriptionId)
      .where('period_start', '=', done.periodStart)
      .execute();
    return true;
  },
});

export type SubscriptionRepository = ReturnType<typeof subscriptionRepository>;
