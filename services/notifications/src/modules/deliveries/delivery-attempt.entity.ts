import { DELIVERY_TRIGGERS } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const DeliveryAttemptEntity = defineEntity({
  name: 'DeliveryAttempt',
  tableName: 'delivery_attempts',
  properties: {
    id: p.uuid().primary().defaultRaw('notifications.uuid_v7()'),
    deliveryId: p.uuid(),
    eventId: p.uuid(),
    endpointId: p.uuid(),
    url: p.text(),
    trigger: p.enum(DELIVERY_TRIGGERS),
    attempt: p.integer(),
    attemptedAt: p.datetime(3),
    succeeded: p.boolean(),
    statusCode: p.integer().nullable(),
    latencyMs: p.integer(),
    responseBody: p.text().nullable(),
    error: p.text().nullable(),
    nextAttemptAt: p.datetime(3).nullable(),
  },
});
export type DeliveryAttemptRow = InferEntity<typeof DeliveryAttemptEntity>;
