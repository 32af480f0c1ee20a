import { z } from 'zod';
import { CalendarDate, dataOf, Livemode, Metadata, MetadataFilterQuery, MetadataInput, pageOf, PageQuery, Timestamp } from '../common.ts';
import { CollectionMethod, DAYS_UNTIL_DUE_MAX, INVOICE_ITEMS_MAX } from '../billing/invoices.ts';
import { RecurringInterval } from '../catalog/prices.ts';
import { IdPathParams, idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';

export const SUBSCRIPTION_STATUSES = ['active', 'canceled'] as const;
export const SubscriptionStatus = z.enum(SUBSCRIPTION_STATUSES).meta({ id: 'SubscriptionStatus', description: '`active`, or `canceled` (no later period is invoiced).' });
export type SubscriptionStatus = z.infer<typeof SubscriptionStatus>;

export const INVOICE_BEHAVIORS = ['finalize', 'draft'] as const;
export const InvoiceBehavior = z.enum(INVOICE_BEHAVIORS).meta({ id: 'InvoiceBehavior', description: '`finalize` (default): each period’s invoice is finalized at once; `draft`: it stays a draft.' });
export type InvoiceBehavior = z.infer<typeof InvoiceBehavior>;

export const SubscriptionItem = z
  .object({
    id: z.string().meta({ example: 'si_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('subscription_item'),
    livemode: Livemode,
    price: z.string().describe('`price_` ID of a recurring price.'),
    quantity: z.int(),
  })
  .meta({ id: 'SubscriptionItem' });
export type SubscriptionItem = z.infer<typeof SubscriptionItem>;

export const Subscription = z
  .object({
    id: z.string().meta({ example: 'sub_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('subscription'),
    livemode: Livemode,
    customer: z.string().describe('`cus_` ID.'),
    status: SubscriptionStatus,
    items: z
      .object({ object: z.literal('list'), data: z.array(SubscriptionItem) })
      .describe('The items as last set; a change applies from the next period (no proration).'),
    currency: z.string().meta({ example: 'EUR' }),
    interval: RecurringInterval,
    interval_count: z.int(),
    collection_method: CollectionMethod,
    days_until_due: z.int().nullable(),
    invoice_behavior: InvoiceBehavior,
    start_date: CalendarDate.describe('The first period’s start, and the anchor of every later one (a month from 31 January ends on the last day of February).'),
    current_period_start: CalendarDate,
    current_period_end: CalendarDate.describe('Exclusive: the next period’s start.'),
    cancel_at: CalendarDate.nullable().describe('No period starting on or after this date is invoiced; the subscription is canceled on it.'),
    canceled_at: Timestamp.nullable(),
    metadata: Metadata,
    created: Timestamp,
  })
  .meta({ id: 'Subscription' });
export type Subscription = z.infer<typeof Subscription>;

export const SubscriptionItemInput = z
  .strictObject({
    price: idReference('price').describe('A recurring, active `price_` ID.'),
    quantity: z.int().min(1).max(1_000_000).default(1).describe('Integer ≥ 1; default 1.'),
  })
  .meta({ id: 'SubscriptionItemInput' });
export type SubscriptionItemInput = z.infer<typeof SubscriptionItemInput>;

const items = z.array(SubscriptionItemInput).min(1, 'needs at least one item').max(INVOICE_ITEMS_MAX).describe(`1 to ${INVOICE_ITEMS_MAX} items.`);
const daysUntilDue = z.int().min(0).max(DAYS_UNTIL_DUE_MAX).nullable();

export const CreateSubscriptionBody = z
  .strictObject({
    customer: idReference('customer'),
    items: items.describe('Every price recurring and active, in one currency, with one `interval` and `interval_count`.'),
    start_date: CalendarDate.optional().describe('Default: today in the workspace’s time zone. In the past: every period from it up to today is invoiced, one invoice each.'),
    days_until_due: daysUntilDue.optional().describe('Sets each invoice’s due date from its issue date (the period start).'),
    collection_method: CollectionMethod.optional().describe('Default `send_invoice`.'),
    invoice_behavior: InvoiceBehavior.optional(),
    cancel_at: CalendarDate.nullable().optional().describe('After `start_date`.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'CreateSubscriptionBody' });
export type CreateSubscriptionBody = z.infer<typeof CreateSubscriptionBody>;

export const UpdateSubscriptionBody = z
  .strictObject({
    items: items.optional().describe('Replaces the list from the next period on (no proration); the same rules as on create, and the same currency and interval.'),
    days_until_due: daysUntilDue.optional(),
    cancel_at: CalendarDate.nullable().optional().describe('Null removes a scheduled cancellation.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'UpdateSubscriptionBody' });
export type UpdateSubscriptionBody = z.infer<typeof UpdateSubscriptionBody>;

export const CancelSubscriptionBody = z
  .strictObject({
    at_period_end: z.boolean().optional().describe('True: at the end of the current period (its invoice stands); default false: now, with no further invoice.'),
  })
  .meta({ id: 'CancelSubscriptionBody', examples: [{ at_period_end: true }] });
export type CancelSubscriptionBody = z.infer<typeof CancelSubscriptionBody>;

export const ListSubscriptionsQuery = z.strictObject({
  ...PageQuery.shape,
  customer: idReference('customer').optional().describe('Only this customer’s subscriptions.'),
  status: SubscriptionStatus.optional(),
  ...MetadataFilterQuery.shape,
});
export type ListSubscriptionsQuery = z.infer<typeof ListSubscriptionsQuery>;

const tag = 'Subscriptions';
const service = 'subscriptions';

export const listSubscriptions = defineOperation({
  operationId: 'listSubscriptions',
  summary: 'List subscriptions, newest first',
  tag, service, method: 'GET', path: '/api/v1/subscriptions', scope: 'subscriptions:read', idempotency: 'none',
  query: ListSubscriptionsQuery,
  responses: { 200: { description: 'A page of subscriptions.', schema: pageOf(Subscription) } },
});

export const createSubscription = defineOperation({
  operationId: 'createSubscription',
  summary: 'Subscribe a customer to recurring prices',
  description:
    'At the start of each period (the first at `start_date`) the subscription makes one invoice for that period, one line per item with the line’s `period`, finalized at once unless `invoice_behavior` is `draft`. Exactly one invoice per period, whatever restarts or downtime.',
  tag, service, method: 'POST', path: '/api/v1/subscriptions', scope: 'subscriptions:write', idempotency: 'required',
  body: CreateSubscriptionBody,
  errors: [404],
  responses: { 201: { description: 'The subscription.', schema: dataOf(Subscription) } },
});

export const retrieveSubscription = defineOperation({
  operationId: 'retrieveSubscription',
  summary: 'Retrieve a subscription',
  tag, service, method: 'GET', path: '/api/v1/subscriptions/:id', scope: 'subscriptions:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The subscription.', schema: dataOf(Subscription) } },
});

export const updateSubscription = defineOperation({
  operationId: 'updateSubscription',
  summary: 'Update a subscription',
  description: '`items` apply from the next period (no proration). A canceled subscription cannot change: 409 `invalid_state`.',
  tag, service, method: 'PATCH', path: '/api/v1/subscriptions/:id', scope: 'subscriptions:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdateSubscriptionBody,
  errors: [404, 409],
  responses: { 200: { description: 'The subscription.', schema: dataOf(Subscription) } },
});

export const cancelSubscription = defineOperation({
  operationId: 'cancelSubscription',
  summary: 'Cancel a subscription now or at the end of its period',
  tag, service, method: 'POST', path: '/api/v1/subscriptions/:id/cancel', scope: 'subscriptions:write', idempotency: 'optional',
  params: IdPathParams,
  body: CancelSubscriptionBody,
  bodyOptional: true,
  errors: [409],
  responses: { 200: { description: 'The subscription: `canceled`, or with `cancel_at` at the period end.', schema: dataOf(Subscription) } },
});

export const subscriptionOperations = [listSubscriptions, createSubscription, retrieveSubscription, updateSubscription, cancelSubscription];
