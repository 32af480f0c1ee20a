import type { WebhookEvent, WebhookEventType } from '@invoicing/contracts';
import { WEBHOOK_EVENT_TYPES } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const EventEntity = defineEntity({
  name: 'Event',
  tableName: 'events',
  properties: {
    /** The envelope id from the bus. */
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    type: p.enum<readonly WebhookEventType[]>(WEBHOOK_EVENT_TYPES),
    created: p.datetime(3),
    data: p.json<WebhookEvent['data']>(),
    receivedAt: p.datetime(3).defaultRaw('now()'),
    /** The id of the request the event came from (the envelope's correlation_id). */
    correlationId: p.text().nullable(),
  },
});
export type EventRow = InferEntity<typeof EventEntity>;
