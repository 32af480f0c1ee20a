import {
  parsePublicId,
  SUBSCRIPTIONS_SUBJECTS,
  toPublicId,
  type CancelSubscriptionBody,
  type CreateSubscriptionBody,
  type ListSubscriptionsQuery,
  type Price,
  type SubscriptionItemInput,
  type UpdateSubscriptionBody,
} from '@invoicing/contracts';
import { afterCommit, invalidRequest, notFound, type Clock, type CursorCodec } from '@invoicing/service-kit';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { addSubscriptionEvent } from '../../shared/events.ts';
import type { BillingClient, CatalogReader } from '../../shared/upstreams.ts';
import { localDate } from './billing-calendar.domain.ts';
import {
  assertActive,
  cadenceOf,
  cancelAtPeriodEnd,
  canceledNow,
  checkCancelAt,
  itemRows,
  newSubscription,
  nextActionAt,
  nextPeriodStart,
  subscriptionView,
  termsOfPrices,
} from './subscription.domain.ts';
import { subscriptionRepository } from './subscription.repository.ts';

export interface SubscriptionDeps {
  em: EntityManager;
  clock: Clock;
  catalog: CatalogReader;
  billing: BillingClient;
  cursors: CursorCodec;
  /** After a commit that added events: the outbox relay sends them now. */
  announce: () => void;
  /** After a commit that made something due: the scheduler looks now (at a test clock's time for a subscription on one). */
  nudgeScheduler: (testClock?: TestClockMoment) => void;
}

/** A test clock at the time it stands at: a subscription on it is due by that time, not by real time. */
export interface TestClockMoment {
  workspaceId: string;
  testClockId: string;
  at: Date;
}

/** The UUID behind a `clock_` path ID (billing's internal calls); a malformed one names nothing (404). */
export const testClockIdOf = (publicId: string): string => {
  const id = parsePublicId('testClock', publicId);
  if (id === undefined) throw notFound('test_clock', publicId);
  return id;
};

export const subscriptionService = ({ em, clock, catalog, billing, cursors, announce, nudgeScheduler }: SubscriptionDeps) => {
  const subscriptions = subscriptionRepository(em);

  /** The prices the items name, from the catalog; one it does not know in the workspace is a 404. */
  const pricesOf = (actor: Actor, items: readonly SubscriptionItemInput[]): Promise<Price[]> =>
    Promise.all(
      items.map(async (item) => {
        const price = await catalog.price(actor.caller, item.price);
        if (!price) throw notFound('price', toPublicId('price', item.price));
        return price;
      }),
    );

  /** The UUID behind a path ID; a malformed one names nothing, so it is a 404 like an unknown one. */
  const idOf = (publicId: string): string => {
    const id = parsePublicId('subscription', publicId);
    if (id === undefined) throw notFound('subscription', publicId);
    return id;
  };

  const load = async (actor: Actor, publicId: string) => {
    const row = await subscriptions.findInWorkspace(actor.workspaceId, idOf(publicId));
    if (!row) throw notFound('subscription', publicId);
    return row;
  };

  /** "Now" for a subscription: its test clock's time when it lives on one (a clock deleted meanwhile: real time). */
  const nowOf = async (actor: Actor, testClockId: string | null | undefined): Promise<Date> =>
    (testClockId ? await billing.testClockTime(actor.caller, testClockId) : undefined) ?? clock.now();

  /** Runs a change on the locked subscription, with its event, and answers the subscription after it. */
  const change = async (
    actor: Actor,
    publicId: string,
    apply: (tx: EntityManager, row: NonNullable<Awaited<ReturnType<typeof subscriptions.findForUpdate>>>, now: Date) => Promise<'updated' | 'canceled'>,
  ) => {
    const now = await nowOf(actor, (await load(actor, publicId)).testClockId);
    const view = await em.transactional(async (tx) => {
      const row = await subscriptions.findForUpdate(tx, actor.workspaceId, idOf(publicId));
      if (!row) throw notFound('subscription', publicId);
      assertActive(row);
      const kind = await apply(tx, row, now);
      row.updatedAt = now;
      await tx.flush();
      const view = subscriptionView(row, await subscriptionRepository(tx).itemsOf(row.id), now);
      const subject = kind === 'canceled' ? SUBSCRIPTIONS_SUBJECTS.subscriptionCanceled : SUBSCRIPTIONS_SUBJECTS.subscriptionUpdated;
      await addSubscriptionEvent(tx, subject, { object: view }, actor.origin, now);
      return view;
    });
    afterCommit(announce);
    return { data: view };
  };

  return {
    create: async (actor: Actor, body: CreateSubscriptionBody) => {
      const [customer, prices, timeZone] = await Promise.all([catalog.customer(actor.caller, body.customer), pricesOf(actor, body.items), billing.timeZone(actor.caller)]);
      if (!customer) throw notFound('customer', toPublicId('customer', body.customer));
      if (customer.deleted) throw invalidRequest('A deleted customer cannot be subscribed.', [{ path: 'customer', message: `${customer.id} is deleted` }]);
      // A customer on a test clock: the subscription lives on it, and starts by the clock's time.
      const testClockId = customer.test_clock ? (parsePublicId('testClock', customer.test_clock) ?? null) : null;
      const clockTime = testClockId ? await billing.testClockTime(actor.caller, testClockId) : undefined;
      if (testClockId && !clockTime) throw notFound('test_clock', customer.test_clock!);
      const now = clockTime ?? clock.now();
      const { row, items } = newSubscription(actor.workspaceId, body, { terms: termsOfPrices(prices), timeZone, now, testClockId });
      const view = subscriptionView(row, items, now);
      await em.transactional(async (tx) => {
        subscriptions.add(tx, row, items);
        await tx.flush();
        await addSubscriptionEvent(tx, SUBSCRIPTIONS_SUBJECTS.subscriptionCreated, { object: view }, actor.origin, now);
      });
      // Its first period is invoiced at once, as in real time: on a clock, at the clock's time.
      afterCommit(() => {
        announce();
        nudgeScheduler(testClockId ? { workspaceId: actor.workspaceId, testClockId, at: now } : undefined);
      });
      return { data: view };
    },

    /** A deleted test clock's subscriptions go with it (billing asks, over the internal route). */
    removeOfTestClock: async (actor: Actor, publicClockId: string) => ({ data: { count: await subscriptions.removeOfTestClock(actor.workspaceId, testClockIdOf(publicClockId)) } }),

    retrieve: async (actor: Actor, publicId: string) => {
      const row = await load(actor, publicId);
      return { data: subscriptionView(row, await subscriptions.itemsOf(row.id), await nowOf(actor, row.testClockId)) };
    },

    list: async (actor: Actor, query: ListSubscriptionsQuery) => {
      const pages = cursors.forList('subscriptions', actor.workspaceId);
      const rows = await subscriptions.pageNewestFirst(actor.workspaceId, { customerId: query.customer, status: query.status, metadata: query.metadata }, pages.positionOf(query.cursor), query.limit);
      const items = await subscriptions.itemsOfEach(rows.slice(0, query.limit).map((row) => row.id));
      // Each test clock on the page read once: its subscriptions' current periods are by its time.
      const clockIds = [...new Set(rows.slice(0, query.limit).flatMap((row) => (row.testClockId ? [row.testClockId] : [])))];
      const clockTimes = new Map(await Promise.all(clockIds.map(async (id) => [id, await nowOf(actor, id)] as const)));
      const now = clock.now();
      return pages.toPage(
        rows.map((row) => ({ row, created: row.createdAt, id: row.id })),
        query.limit,
        ({ row }) => subscriptionView(row, items.get(row.id) ?? [], (row.testClockId ? clockTimes.get(row.testClockId) : undefined) ?? now),
      );
    },

    update: async (actor: Actor, publicId: string, patch: UpdateSubscriptionBody) => {
      // Prices are read before the lock: the catalog is another service.
      const prices = patch.items !== undefined ? await pricesOf(actor, patch.items) : undefined;
      return change(actor, publicId, async (tx, row, now) => {
        const today = localDate(now, row.timeZone);
        if (patch.items !== undefined && prices) {
          termsOfPrices(prices, { currency: row.currency, cadence: cadenceOf(row) });
          const from = nextPeriodStart(row, today);
          await subscriptionRepository(tx).replaceItemsFrom(tx, row.id, from, itemRows(row, patch.items, from));
        }
        if (patch.days_until_due !== undefined) row.daysUntilDue = patch.days_until_due;
        if (patch.cancel_at !== undefined) {
          row.cancelAt = checkCancelAt(row, patch.cancel_at, today);
          row.nextActionAt = nextActionAt(row);
        }
        if (patch.metadata !== undefined) row.metadata = mergeMetadata(row.metadata, patch.metadata);
        return 'updated';
      });
    },

    cancel: (actor: Actor, publicId: string, body: CancelSubscriptionBody) =>
      change(actor, publicId, async (_tx, row, now) => {
        if (body.at_period_end) {
          row.cancelAt = cancelAtPeriodEnd(row, localDate(now, row.timeZone));
          row.nextActionAt = nextActionAt(row);
          return 'updated';
        }
        Object.assign(row, canceledNow(now));
        return 'canceled';
      }),
  };
};

export type SubscriptionService = ReturnType<typeof subscriptionService>;
