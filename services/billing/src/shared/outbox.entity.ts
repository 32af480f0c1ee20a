import type { EventEnvelope } from '@invoicing/contracts';
import type { TraceCarrier } from '@invoicing/service-kit';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * Billing's event outbox (the kit's `outboxTableSql` and `outboxClaimColumnsSql`). Only its queries
 * use it: rows are written in the same statement as the change they report.
 * TEMPORARY: identical to the service kit's `OutboxEntity`, which replaces it.
 */
export const OutboxEntity = defineEntity({
  name: 'Outbox',
  tableName: 'outbox',
  properties: {
    id: p.uuid().primary(),
    subject: p.text(),
    envelope: p.json<EventEnvelope>(),
    traceContext: p.json<TraceCarrier>().nullable(),
    // Set by PostgreSQL as the row is written: the relay publishes in (created_at, id) order.
    createdAt: p.datetime().defaultRaw('clock_timestamp()'),
    publishedAt: p.datetime().nullable(),
    claimedUntil: p.datetime().nullable(),
  },
});
export type OutboxRow = InferEntity<typeof OutboxEntity>;
