import type { CollectionMethod, InvoiceBehavior, Metadata, SubscriptionStatus } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';
import type { RecurringInterval } from './billing-calendar.domain.ts';

export const SubscriptionEntity = defineEntity({
  name: 'Subscription',
  tableName: 'subscriptions',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    customerId: p.uuid(),
    /** Its customer's test clock (billing's): its periods follow the clock's time, run by the clock's advances, never by the real-time scheduler. */
    testClockId: p.uuid().nullable(),
    status: p.enum<readonly SubscriptionStatus[]>(['active', 'canceled']),
    currency: p.string().length(3),
    interval: p.enum<readonly RecurringInterval[]>(['day', 'week', 'month', 'year']),
    intervalCount: p.smallint(),
    collectionMethod: p.enum<readonly CollectionMethod[]>(['send_invoice', 'charge_automatically']),
    daysUntilDue: p.smallint().nullable(),
    invoiceBehavior: p.enum<readonly InvoiceBehavior[]>(['finalize', 'draft']),
    /** The first period's start, and the anchor of every later one. */
    startDate: p.date(),
    /** The workspace's time zone as last read from billing's account: "today" and when a period begins. */
    timeZone: p.text(),
    /** Periods invoiced so far: the next to invoice is period `periodsInvoiced` from `startDate`. */
    periodsInvoiced: p.integer(),
    /** When the scheduler has something to do: the next period's start, or the cancellation, in `timeZone`; null once canceled. */
    nextActionAt: p.datetime(3).nullable(),
    cancelAt: p.date().nullable(),
    canceledAt: p.datetime(3).nullable(),
    metadata: p.json<Metadata>(),
    /** A scheduler holding the subscription until then; another replica takes it only afterwards. */
    claimedUntil: p.datetime(3).nullable(),
    /** Why billing refused the last period's invoice, while it does. */
    lastError: p.text().nullable(),
    createdAt: p.datetime(3),
    updatedAt: p.datetime(3),
  },
});
export type SubscriptionRow = InferEntity<typeof SubscriptionEntity>;

/** One item, in force from `effectiveFrom` (a period start) until a later set replaces the list. */
export const SubscriptionItemEntity = defineEntity({
  name: 'SubscriptionItem',
  tableName: 'subscription_items',
  properties: {
    id: p.uuid().primary(),
    subscriptionId: p.uuid(),
    workspaceId: p.uuid(),
    effectiveFrom: p.date(),
    position: p.smallint(),
    priceId: p.uuid(),
    quantity: p.integer(),
  },
});
export type SubscriptionItemRow = InferEntity<typeof SubscriptionItemEntity>;

/**
 * The invoice of one period: the request sent to billing is stored before it is sent, so every
 * retry sends the same body under the same key and billing answers with the invoice it made.
 */
export const SubscriptionPeriodEntity = defineEntity({
  name: 'SubscriptionPeriod',
  tableName: 'subscription_periods',
  properties: {
    subscriptionId: p.uuid().primary(),
    periodStart: p.date().primary(),
    workspaceId: p.uuid(),
    periodEnd: p.date(),
    request: p.json<Record<string, unknown>>(),
    invoiceId: p.uuid().nullable(),
    finalized: p.boolean(),
    createdAt: p.datetime(3),
  },
});
export type SubscriptionPeriodRow = InferEntity<typeof SubscriptionPeriodEntity>;
