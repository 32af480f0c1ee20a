import {
  toPublicId,
  type CreateSubscriptionBody,
  type CreateSubscriptionInvoiceBody,
  type Price,
  type Subscription,
  type SubscriptionItemInput,
} from '@invoicing/contracts';
import { invalidRequest, invalidState, type FieldIssue } from '@invoicing/service-kit/app-error';
import { newId } from '@invoicing/service-kit/ids';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import { localDate, periodIndexOn, periodOf, periodStart, periodsStartedBy, startOfDay, type Cadence } from './billing-calendar.domain.ts';
import type { SubscriptionItemRow, SubscriptionRow } from './subscription.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

export const cadenceOf = (row: Pick<SubscriptionRow, 'interval' | 'intervalCount'>): Cadence => ({ interval: row.interval, intervalCount: row.intervalCount });

/** What every price of a subscription shares: one currency, one interval and count. */
export interface PriceTerms {
  currency: string;
  cadence: Cadence;
}

/**
 * The terms of the prices a subscription bills, checked (decisions.md "Subscriptions"): each
 * recurring and active, all in one currency with one interval and interval count; otherwise a
 * 400 naming each offending item. `expected`: the terms the subscription has already (a PATCH
 * keeps them).
 */
export const termsOfPrices = (prices: readonly Price[], expected?: PriceTerms): PriceTerms => {
  const issues: FieldIssue[] = [];
  const first = prices[0]!;
  const terms = expected ?? {
    currency: first.currency,
    cadence: { interval: first.recurring?.interval ?? 'month', intervalCount: first.recurring?.interval_count ?? 1 },
  };
  prices.forEach((price, index) => {
    const path = `items.${index}.price`;
    if (price.type !== 'recurring' || !price.recurring) return issues.push({ path, message: `${price.id} is not a recurring price` });
    if (!price.active) issues.push({ path, message: `${price.id} is archived` });
    if (price.currency !== terms.currency) issues.push({ path, message: `${price.id} is in ${price.currency}, the subscription in ${terms.currency}` });
    if (price.recurring.interval !== terms.cadence.interval || price.recurring.interval_count !== terms.cadence.intervalCount) {
      issues.push({
        path,
        message: `${price.id} bills every ${price.recurring.interval_count} ${price.recurring.interval}, the subscription every ${terms.cadence.intervalCount} ${terms.cadence.interval}`,
      });
    }
    return undefined;
  });
  if (issues.length) throw invalidRequest('Every price of a subscription must be recurring and active, with one currency and one interval.', issues);
  return terms;
};

/** Item rows of one list, in force from `effectiveFrom`. */
export const itemRows = (subscription: Pick<SubscriptionRow, 'id' | 'workspaceId'>, items: readonly SubscriptionItemInput[], effectiveFrom: string): SubscriptionItemRow[] =>
  items.map((item, position) => ({
    id: newId(),
    subscriptionId: subscription.id,
    workspaceId: subscription.workspaceId,
    effectiveFrom,
    position,
    priceId: item.price,
    quantity: item.quantity,
  }));

/** The list in force on `date`: the latest list that applies from it or earlier. */
export const itemsInForceOn = (items: readonly SubscriptionItemRow[], date: string): SubscriptionItemRow[] => {
  const from = items.filter((item) => item.effectiveFrom <= date).reduce<string | undefined>((latest, item) => (latest === undefined || item.effectiveFrom > latest ? item.effectiveFrom : latest), undefined);
  return items.filter((item) => item.effectiveFrom === from).sort((a, b) => a.position - b.position);
};

/** The list as last set (a change waiting for the next period included): what reads show. */
export const latestItems = (items: readonly SubscriptionItemRow[]): SubscriptionItemRow[] => itemsInForceOn(items, '9999-12-31');

/**
 * When the scheduler next has something to do: the next period's start, or the scheduled
 * cancellation if that comes first, each at the start of its day in the workspace's time zone;
 * null once canceled.
 */
export const nextActionAt = (row: Pick<SubscriptionRow, 'status' | 'startDate' | 'interval' | 'intervalCount' | 'periodsInvoiced' | 'cancelAt' | 'timeZone'>): Date | null => {
  if (row.status === 'canceled') return null;
  const next = periodStart(row.startDate, cadenceOf(row), row.periodsInvoiced);
  const date = row.cancelAt != null && row.cancelAt < next ? row.cancelAt : next;
  return startOfDay(date, row.timeZone);
};

export const newSubscription = (
  workspaceId: string,
  body: CreateSubscriptionBody,
  context: { terms: PriceTerms; timeZone: string; now: Date; testClockId?: string | null },
): { row: SubscriptionRow; items: SubscriptionItemRow[] } => {
  const today = localDate(context.now, context.timeZone);
  const startDate = body.start_date ?? today;
  const cancelAt = body.cancel_at ?? null;
  if (cancelAt !== null && cancelAt <= startDate) throw invalidRequest('cancel_at must be after start_date.', [{ path: 'cancel_at', message: `is not after the start date ${startDate}` }]);
  const metadata = mergeMetadata({}, body.metadata);
  const row: SubscriptionRow = {
    id: newId(),
    workspaceId,
    customerId: body.customer,
    testClockId: context.testClockId ?? null,
    status: 'active',
    currency: context.terms.currency,
    interval: context.terms.cadence.interval,
    intervalCount: context.terms.cadence.intervalCount,
    collectionMethod: body.collection_method ?? 'send_invoice',
    daysUntilDue: body.days_until_due ?? null,
    invoiceBehavior: body.invoice_behavior ?? 'finalize',
    startDate,
    timeZone: context.timeZone,
    periodsInvoiced: 0,
    nextActionAt: null,
    cancelAt,
    canceledAt: null,
    metadata,
    claimedUntil: null,
    lastError: null,
    createdAt: context.now,
    updatedAt: context.now,
  };
  row.nextActionAt = nextActionAt(row);
  return { row, items: itemRows(row, body.items, startDate) };
};

/** A canceled subscription never changes again. */
export const assertActive = (row: Pick<SubscriptionRow, 'status'>): void => {
  if (row.status === 'canceled') throw invalidState('This subscription is canceled: it can no longer change.');
};

/** The index of the current period on `today`: the one today falls in, or the first before it starts. */
const currentIndex = (row: SubscriptionRow, today: string): number => periodIndexOn(row.startDate, cadenceOf(row), today);

/**
 * The period from which a change of items applies: the next one that has not begun (no
 * proration). Periods that have begun keep their items even when their invoice is still to come
 * (the service was down), so every period bills what was in force when it started.
 */
export const nextPeriodStart = (row: SubscriptionRow, today: string): string =>
  periodStart(row.startDate, cadenceOf(row), Math.max(periodsStartedBy(row.startDate, cadenceOf(row), today), row.periodsInvoiced));

/** `cancel_at` on an update: after the start, and not in the past. */
export const checkCancelAt = (row: SubscriptionRow, cancelAt: string | null, today: string): string | null => {
  if (cancelAt === null) return null;
  if (cancelAt <= row.startDate) throw invalidRequest('cancel_at must be after start_date.', [{ path: 'cancel_at', message: `is not after the start date ${row.startDate}` }]);
  if (cancelAt < today) throw invalidRequest('cancel_at may not be in the past.', [{ path: 'cancel_at', message: `is before today (${today})` }]);
  return cancelAt;
};

/** Canceled now: no further invoice. */
export const canceledNow = (now: Date): Pick<SubscriptionRow, 'status' | 'canceledAt' | 'nextActionAt' | 'claimedUntil'> => ({
  status: 'canceled',
  canceledAt: now,
  nextActionAt: null,
  claimedUntil: null,
});

/** Canceled at the end of the current period: its invoice stands, none comes after. */
export const cancelAtPeriodEnd = (row: SubscriptionRow, today: string): string => periodStart(row.startDate, cadenceOf(row), currentIndex(row, today) + 1);

/** The subscription's key of one period at billing: the same on every retry, replica and restart. */
export const periodKey = (row: Pick<SubscriptionRow, 'id'>, periodStartDate: string, step: 'create' | 'finalize'): string =>
  `${toPublicId('subscription', row.id)}/${periodStartDate}/${step}`;

/** The draft billing makes for period `index`: one line per item in force when the period began, each with the period. */
export const invoiceRequest = (row: SubscriptionRow, items: readonly SubscriptionItemRow[], index: number): { period: ReturnType<typeof periodOf>; body: CreateSubscriptionInvoiceBody } => {
  const period = periodOf(row.startDate, cadenceOf(row), index);
  const lines = itemsInForceOn(items, period.start);
  return {
    period,
    body: {
      customer: toPublicId('customer', row.customerId),
      subscription: toPublicId('subscription', row.id),
      period_start: period.start,
      currency: row.currency,
      collection_method: row.collectionMethod,
      issue_date: period.start,
      ...(row.daysUntilDue != null ? { days_until_due: row.daysUntilDue } : {}),
      items: lines.map((item) => ({ price: toPublicId('price', item.priceId), quantity: item.quantity, period: { start: period.start, end: period.lastDay } })),
    },
  };
};

export const subscriptionView = (row: SubscriptionRow, items: readonly SubscriptionItemRow[], now: Date): Subscription => {
  // A canceled subscription's current period is the one it ended in.
  const asOf = row.canceledAt ? new Date(Math.min(now.getTime(), row.canceledAt.getTime())) : now;
  const index = currentIndex(row, localDate(asOf, row.timeZone));
  const period = periodOf(row.startDate, cadenceOf(row), index);
  return {
    id: toPublicId('subscription', row.id),
    object: 'subscription',
    livemode: livemodeOf(row.workspaceId),
    customer: toPublicId('customer', row.customerId),
    status: row.status,
    items: {
      object: 'list',
      data: latestItems(items).map((item) => ({ id: toPublicId('subscriptionItem', item.id), object: 'subscription_item', livemode: livemodeOf(item.workspaceId), price: toPublicId('price', item.priceId), quantity: item.quantity })),
    },
    currency: row.currency,
    interval: row.interval,
    interval_count: row.intervalCount,
    collection_method: row.collectionMethod,
    days_until_due: row.daysUntilDue ?? null,
    invoice_behavior: row.invoiceBehavior,
    start_date: row.startDate,
    current_period_start: period.start,
    current_period_end: period.end,
    cancel_at: row.cancelAt ?? null,
    canceled_at: row.canceledAt ? row.canceledAt.toISOString() : null,
    metadata: row.metadata,
    created: row.createdAt.toISOString(),
  };
};
