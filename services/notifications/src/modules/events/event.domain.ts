import { toPublicId, type DeliveryAttempt, type WebhookEvent, type WebhookEventType } from '@invoicing/contracts';
import type { DeliveryAttemptRow } from '../deliveries/delivery-attempt.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** What an event is made of, from its row or from a claimed delivery. */
export interface EventFacts {
  id: string;
  /** Its data space: tells the event's mode. */
  workspaceId: string;
  type: string;
  created: Date;
  data: unknown;
}

/** The public event: the API's view and, serialized, the body of every delivery. */
export const eventView = ({ id, workspaceId, type, created, data }: EventFacts): WebhookEvent => ({
  id: toPublicId('event', id),
  object: 'event',
  livemode: livemodeOf(workspaceId),
  type: type as WebhookEventType,
  created: created.toISOString(),
  data: data as WebhookEvent['data'],
});

/** An attempt at delivering an event of the data space `spaceId` (attempts carry no space of their own). */
export const attemptView = (row: DeliveryAttemptRow, spaceId: string): DeliveryAttempt => ({
  id: toPublicId('deliveryAttempt', row.id),
  object: 'delivery_attempt',
  livemode: livemodeOf(spaceId),
  event: toPublicId('event', row.eventId),
  endpoint: toPublicId('webhookEndpoint', row.endpointId),
  url: row.url,
  trigger: row.trigger,
  attempt: row.attempt,
  attempted_at: row.attemptedAt.toISOString(),
  succeeded: row.succeeded,
  status_code: row.statusCode ?? null,
  latency_ms: row.latencyMs,
  response_body: row.responseBody ?? null,
  error: row.error ?? null,
  next_attempt_at: row.nextAttemptAt?.toISOString() ?? null,
});
