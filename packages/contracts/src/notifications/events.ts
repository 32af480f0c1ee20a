import { z } from 'zod';
import { InvoiceEventData, MessageEventData } from '../billing/events.ts';
import { SubscriptionEventData } from '../subscriptions/events.ts';
import { dataOf, Livemode, PageQuery, pageOf, Timestamp } from '../common.ts';
import { IdPathParams, idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from './event-types.ts';
import { openEnum } from '../schema-documentation.ts';
import { TimeBound } from './webhook-endpoints.ts';

/** What an event carries: `object`, the invoice (lines included) or the subscription as it was at that moment. */
export const WebhookEventData = z.union([InvoiceEventData, SubscriptionEventData, MessageEventData]).meta({ id: 'WebhookEventData' });
export type WebhookEventData = z.infer<typeof WebhookEventData>;

/** The data schema of a public event type: `subscription.*` carry a subscription, the others an invoice. */
export const webhookEventDataSchema = (type: string) =>
  type.startsWith('subscription.') ? SubscriptionEventData : type === 'message.failed' ? MessageEventData : InvoiceEventData;

/**
 * An event's type as responses carry it: the types of today, and any type added later (an open
 * enum, so a client generated today does not fail a page that holds a newer event).
 */
export const EventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'EventType', description: 'What happened.', override: openEnum('EventType') });

/**
 * Something that happened in a workspace, kept 90 days. This very JSON is the body of every
 * webhook delivery of the event, whose `webhook-id` header is its `id`.
 */
export const WebhookEvent = z
  .object({
    id: z.string().meta({ example: 'evt_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('event'),
    livemode: Livemode,
    type: EventType,
    created: Timestamp.describe('When it happened.'),
    data: WebhookEventData.describe('`object`: the invoice as it was at that moment, lines included (`invoice.*`), the subscription (`subscription.*`), or the message (`message.failed`).'),
  })
  .meta({ id: 'Event' });
export type WebhookEvent = z.infer<typeof WebhookEvent>;

export const ListEventsQuery = z.strictObject({
  ...PageQuery.shape,
  type: WebhookEventType.optional().describe('Only events of this type.'),
  'created[gte]': TimeBound.optional().describe('Created at or after.'),
  'created[lte]': TimeBound.optional().describe('Created at or before.'),
});
export type ListEventsQuery = z.infer<typeof ListEventsQuery>;

export const DELIVERY_TRIGGERS = ['event', 'replay', 'redeliver'] as const;

/** One HTTP request that carried an event to an endpoint. */
export const DeliveryAttempt = z
  .object({
    id: z.string().meta({ example: 'att_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('delivery_attempt'),
    livemode: Livemode,
    event: z.string().describe('`evt_` ID.'),
    endpoint: z.string().describe('`we_` ID (the endpoint may since have been deleted).'),
    url: z.string().describe('The URL the request went to.'),
    trigger: z.enum(DELIVERY_TRIGGERS).meta({ id: 'DeliveryTrigger' }).describe('`event`: the event itself; `replay` and `redeliver`: sent again on request.'),
    attempt: z.int().describe('1 for the first attempt of this delivery, 2 for its first retry, and so on.'),
    attempted_at: Timestamp,
    succeeded: z.boolean().describe('The receiver answered 2xx.'),
    status_code: z.int().nullable().describe('Null when no response came (timeout, connection refused, address not allowed).'),
    latency_ms: z.int(),
    response_body: z.string().nullable().describe('The first 4 KiB of the response body.'),
    error: z.string().nullable().describe('Why the attempt failed, when it did.'),
    next_attempt_at: Timestamp.nullable().describe('When this failed delivery is tried again; null when it succeeded or no attempt is left.'),
  })
  .meta({ id: 'DeliveryAttempt' });
export type DeliveryAttempt = z.infer<typeof DeliveryAttempt>;

export const RedeliverEventBody = z
  .strictObject({
    endpoint: idReference('webhookEndpoint').optional().describe('Only to this endpoint; default: every enabled endpoint that receives the type.'),
  })
  .meta({ id: 'RedeliverEventBody' });
export type RedeliverEventBody = z.infer<typeof RedeliverEventBody>;

export const EventRedelivery = z
  .object({
    object: z.literal('event_redelivery'),
    livemode: Livemode,
    event: z.string().describe('`evt_` ID.'),
    endpoints: z.array(z.string()).describe('`we_` IDs the event is queued for; empty when no enabled endpoint receives its type.'),
  })
  .meta({ id: 'EventRedelivery', examples: [{ object: 'event_redelivery', livemode: true, event: 'evt_0190f3e2c1b27a8e9d1f3c4b5a697887', endpoints: ['we_0190f3e2c1b27a8e9d1f3c4b5a697888'] }] });
export type EventRedelivery = z.infer<typeof EventRedelivery>;

const tag = 'Events';
const service = 'notifications';

export const listEvents = defineOperation({
  operationId: 'listEvents',
  summary: 'List events, newest first',
  description: 'Events are kept 90 days.',
  tag, service, method: 'GET', path: '/api/v1/events', scope: 'webhooks:read', idempotency: 'none',
  query: ListEventsQuery,
  responses: { 200: { description: 'A page of events.', schema: pageOf(WebhookEvent) } },
});

export const retrieveEvent = defineOperation({
  operationId: 'retrieveEvent',
  summary: 'Retrieve an event',
  tag, service, method: 'GET', path: '/api/v1/events/:id', scope: 'webhooks:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The event.', schema: dataOf(WebhookEvent) } },
});

export const listEventDeliveries = defineOperation({
  operationId: 'listEventDeliveries',
  summary: 'List the delivery attempts of an event, newest first',
  tag, service, method: 'GET', path: '/api/v1/events/:id/deliveries', scope: 'webhooks:read', idempotency: 'none',
  params: IdPathParams,
  query: PageQuery,
  responses: { 200: { description: 'A page of delivery attempts.', schema: pageOf(DeliveryAttempt) } },
});

export const redeliverEvent = defineOperation({
  operationId: 'redeliverEvent',
  summary: 'Send an event again',
  tag, service, method: 'POST', path: '/api/v1/events/:id/redeliver', scope: 'webhooks:write', idempotency: 'optional',
  params: IdPathParams,
  body: RedeliverEventBody,
  bodyOptional: true,
  errors: [409],
  responses: { 200: { description: 'The endpoints the event is queued for.', schema: dataOf(EventRedelivery) } },
});

export const eventOperations = [listEvents, retrieveEvent, listEventDeliveries, redeliverEvent];
