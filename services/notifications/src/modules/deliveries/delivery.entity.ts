import { DELIVERY_TRIGGERS } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const DELIVERY_STATES = ['pending', 'succeeded', 'failed', 'cancelled'] as const;

/**
 * One event on its way to one endpoint: the unit the worker claims under a lease. Rows are made
 * and moved in SQL only (fanned out by INSERT ... SELECT, claimed with SKIP LOCKED), never through
 * the identity map; the entity names the table and its columns for those queries.
 */
export const DeliveryEntity = defineEntity({
  name: 'Delivery',
  tableName: 'deliveries',
  properties: {
    id: p.uuid().primary().defaultRaw('notifications.uuid_v7()'),
    eventId: p.uuid(),
    endpointId: p.uuid(),
    trigger: p.enum(DELIVERY_TRIGGERS),
    state: p.enum(DELIVERY_STATES).defaultRaw(`'pending'`),
    attempts: p.integer().defaultRaw('0'),
    /** Set while pending (due time, pushed ahead by a claim's lease); null once finished. */
    nextAttemptAt: p.datetime(3).nullable(),
    /** Who holds the delivery while sending it; its result counts only under the same lease. */
    lease: p.uuid().nullable(),
    created: p.datetime(3).defaultRaw('now()'),
    finishedAt: p.datetime(3).nullable(),
  },
});
export type DeliveryRow = InferEntity<typeof DeliveryEntity>;
