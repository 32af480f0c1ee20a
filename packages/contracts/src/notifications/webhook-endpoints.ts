import { z } from 'zod';
import { dataOf, Livemode, Metadata, MetadataFilterQuery, MetadataInput, OPTIONAL_TEXT_RULE, optionalText, pageOf, PageQuery, Timestamp } from '../common.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { WEBHOOK_EVENT_TYPES, WebhookEventType } from './event-types.ts';

export const WEBHOOK_URL_MAX = 2048;
export const WEBHOOK_DESCRIPTION_MAX = 500;

export const WEBHOOK_ENDPOINT_STATUSES = ['enabled', 'disabled'] as const;
export const WebhookEndpointStatus = z.enum(WEBHOOK_ENDPOINT_STATUSES).meta({ id: 'WebhookEndpointStatus' });
export type WebhookEndpointStatus = z.infer<typeof WebhookEndpointStatus>;

/**
 * Why an endpoint is disabled: `requested` through the API, `gone` when its receiver answered
 * 410 Gone, `failing` when every attempt to it failed for 3 days.
 */
export const WEBHOOK_DISABLED_REASONS = ['requested', 'gone', 'failing'] as const;
export const WebhookDisabledReason = z.enum(WEBHOOK_DISABLED_REASONS).meta({ id: 'WebhookDisabledReason' });
export type WebhookDisabledReason = z.infer<typeof WebhookDisabledReason>;

/** Every event type, present and future. */
export const ALL_EVENTS = '*';

/**
 * An item of `enabled_events`: `"*"` or an event type. Written into the document as a named
 * alternative (`AllEvents`), so a generated client calls it that rather than `VALUE_0`.
 */
const EnabledEvent = z.enum([ALL_EVENTS, ...WEBHOOK_EVENT_TYPES]).meta({
  override: ({ jsonSchema }: { jsonSchema: Record<string, unknown> }) => {
    for (const key of Object.keys(jsonSchema)) delete jsonSchema[key];
    jsonSchema.anyOf = [
      { title: 'AllEvents', type: 'string', enum: [ALL_EVENTS], 'x-enum-varnames': ['ALL_EVENTS'], description: 'Every event type, present and future.' },
      { $ref: '#/components/schemas/WebhookEventType' },
    ];
  },
});

export const EnabledEvents = z
  .array(EnabledEvent)
  .min(1)
  .max(WEBHOOK_EVENT_TYPES.length + 1)
  .refine((events) => !events.includes(ALL_EVENTS) || events.length === 1, { message: '"*" stands alone: it already means every type' })
  .transform((events) => [...new Set(events)])
  .describe('Event types this endpoint receives, or `["*"]` for all of them. An unknown type is a 400.')
  .meta({ example: ['invoice.paid', 'invoice.voided'], allOf: [{ if: { contains: { const: ALL_EVENTS } }, then: { maxItems: 1 } }] });

const url = z
  .string()
  .trim()
  .min(1)
  .max(WEBHOOK_URL_MAX)
  .describe('Where events are POSTed: `https`, resolving to a public address (`http` and private addresses only for hosts the operator allows).')
  .meta({ example: 'https://example.com/webhooks/invoicing' });
const description = optionalText(WEBHOOK_DESCRIPTION_MAX).describe(`At most ${WEBHOOK_DESCRIPTION_MAX} characters. ${OPTIONAL_TEXT_RULE}`);

/** A URL that receives the workspace's events, signed per Standard Webhooks. */
export const WebhookEndpoint = z
  .object({
    id: z.string().meta({ example: 'we_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('webhook_endpoint'),
    livemode: Livemode,
    url: z.string(),
    enabled_events: z.array(z.string()).describe('Event types it receives; `["*"]` for all.'),
    description: z.string().nullable(),
    status: WebhookEndpointStatus.describe('A disabled endpoint receives nothing.'),
    disabled_reason: WebhookDisabledReason.nullable().describe(
      'Null while enabled. `requested`: disabled through the API; `gone`: the receiver answered 410 Gone; `failing`: every attempt failed for 3 days.',
    ),
    disabled_at: Timestamp.nullable(),
    failing_since: Timestamp.nullable().describe('The first failed attempt since the last success; null while attempts succeed.'),
    previous_secret_expires_at: Timestamp.nullable().describe('After a rotation, deliveries carry a signature with the old secret too until then.'),
    metadata: Metadata,
    created: Timestamp,
    updated: Timestamp,
  })
  .meta({ id: 'WebhookEndpoint' });
export type WebhookEndpoint = z.infer<typeof WebhookEndpoint>;

/** The endpoint with its signing secret: the create and rotate responses alone show it. */
export const WebhookEndpointWithSecret = z
  .object({
    ...WebhookEndpoint.shape,
    secret: z
      .string()
      .describe('`whsec_` + base64 of 32 random bytes: the Standard Webhooks signing key. Shown only now; keep it safe.')
      .meta({ example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw8Fx2T5NExAk=' }),
  })
  .meta({ id: 'WebhookEndpointWithSecret' });
export type WebhookEndpointWithSecret = z.infer<typeof WebhookEndpointWithSecret>;

export const CreateWebhookEndpointBody = z
  .strictObject({
    url,
    enabled_events: EnabledEvents,
    description: description.optional(),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'CreateWebhookEndpointBody' });
export type CreateWebhookEndpointBody = z.infer<typeof CreateWebhookEndpointBody>;

export const UpdateWebhookEndpointBody = z
  .strictObject({
    url: url.optional(),
    enabled_events: EnabledEvents.optional(),
    description: description.optional(),
    status: WebhookEndpointStatus.optional().describe('`disabled` stops deliveries (pending retries are dropped); `enabled` resumes them for new events.'),
    metadata: MetadataInput.optional(),
  })
  .meta({ id: 'UpdateWebhookEndpointBody' });
export type UpdateWebhookEndpointBody = z.infer<typeof UpdateWebhookEndpointBody>;

export const ListWebhookEndpointsQuery = z.strictObject({ ...PageQuery.shape, ...MetadataFilterQuery.shape });
export type ListWebhookEndpointsQuery = z.infer<typeof ListWebhookEndpointsQuery>;

/** A datetime, or a date meaning that whole day in UTC. */
export const TimeBound = z
  .union([z.iso.datetime({ offset: true }), z.iso.date()])
  .describe('ISO 8601 datetime, or a date (the whole day, UTC).');

export const ReplayWebhookEventsBody = z
  .strictObject({
    since: TimeBound.describe('Events created at or after (a date: from the start of that day, UTC).'),
    until: TimeBound.optional().describe('Events created at or before (a date: to the end of that day, UTC); default: now.'),
    types: z.array(WebhookEventType).min(1).optional().describe('Only these types; default: the types the endpoint receives.'),
  })
  .meta({ id: 'ReplayWebhookEventsBody', examples: [{ since: '2026-11-01', types: ['invoice.paid'] }] });
export type ReplayWebhookEventsBody = z.infer<typeof ReplayWebhookEventsBody>;

export const WebhookReplay = z
  .object({
    object: z.literal('webhook_replay'),
    livemode: Livemode,
    endpoint: z.string().describe('`we_` ID.'),
    since: Timestamp,
    until: Timestamp,
    types: z.array(z.string()),
    event_count: z.int().describe('Events queued for delivery to the endpoint.'),
  })
  .meta({ id: 'WebhookReplay' });
export type WebhookReplay = z.infer<typeof WebhookReplay>;

const tag = 'Webhook endpoints';
const service = 'notifications';

export const listWebhookEndpoints = defineOperation({
  operationId: 'listWebhookEndpoints',
  summary: 'List webhook endpoints, newest first',
  tag, service, method: 'GET', path: '/api/v1/webhook_endpoints', scope: 'webhooks:read', idempotency: 'none',
  query: ListWebhookEndpointsQuery,
  responses: { 200: { description: 'A page of webhook endpoints.', schema: pageOf(WebhookEndpoint) } },
});

export const createWebhookEndpoint = defineOperation({
  operationId: 'createWebhookEndpoint',
  summary: 'Create a webhook endpoint',
  description: 'The response alone shows the signing `secret`. The URL must be `https` and resolve to a public address unless the operator allows its host.',
  tag, service, method: 'POST', path: '/api/v1/webhook_endpoints', scope: 'webhooks:write', idempotency: 'optional',
  body: CreateWebhookEndpointBody,
  responses: { 201: { description: 'The new endpoint with its secret.', schema: dataOf(WebhookEndpointWithSecret) } },
});

export const retrieveWebhookEndpoint = defineOperation({
  operationId: 'retrieveWebhookEndpoint',
  summary: 'Retrieve a webhook endpoint',
  tag, service, method: 'GET', path: '/api/v1/webhook_endpoints/:id', scope: 'webhooks:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The endpoint, without its secret.', schema: dataOf(WebhookEndpoint) } },
});

export const updateWebhookEndpoint = defineOperation({
  operationId: 'updateWebhookEndpoint',
  summary: 'Update a webhook endpoint: URL, events, description, enable or disable',
  tag, service, method: 'PATCH', path: '/api/v1/webhook_endpoints/:id', scope: 'webhooks:write', idempotency: 'optional',
  params: IdPathParams,
  body: UpdateWebhookEndpointBody,
  responses: { 200: { description: 'The updated endpoint.', schema: dataOf(WebhookEndpoint) } },
});

export const deleteWebhookEndpoint = defineOperation({
  operationId: 'deleteWebhookEndpoint',
  summary: 'Delete a webhook endpoint',
  description: 'Pending deliveries to it are dropped; past delivery attempts stay listed under their events.',
  tag, service, method: 'DELETE', path: '/api/v1/webhook_endpoints/:id', scope: 'webhooks:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 204: { description: 'Deleted.' } },
});

export const rotateWebhookEndpointSecret = defineOperation({
  operationId: 'rotateWebhookEndpointSecret',
  summary: 'Rotate the signing secret of a webhook endpoint',
  description: 'The old secret stays valid for 24 hours: meanwhile every delivery carries a signature with each, so receivers can switch without losing an event.',
  tag, service, method: 'POST', path: '/api/v1/webhook_endpoints/:id/rotate_secret', scope: 'webhooks:write', idempotency: 'optional',
  params: IdPathParams,
  responses: { 200: { description: 'The endpoint with its new secret.', schema: dataOf(WebhookEndpointWithSecret) } },
});

export const replayWebhookEvents = defineOperation({
  operationId: 'replayWebhookEvents',
  summary: 'Send past events to a webhook endpoint again',
  description: 'For a receiver that lost its data: every event of the workspace created between `since` and `until` whose type matches is queued for this endpoint. Like every delivery, they may arrive in any order; each carries its event id in `webhook-id`.',
  tag, service, method: 'POST', path: '/api/v1/webhook_endpoints/:id/replay', scope: 'webhooks:write', idempotency: 'optional',
  params: IdPathParams,
  body: ReplayWebhookEventsBody,
  errors: [409],
  responses: { 200: { description: 'What was queued.', schema: dataOf(WebhookReplay) } },
});

export const webhookEndpointOperations = [
  listWebhookEndpoints,
  createWebhookEndpoint,
  retrieveWebhookEndpoint,
  updateWebhookEndpoint,
  deleteWebhookEndpoint,
  rotateWebhookEndpointSecret,
  replayWebhookEvents,
];
