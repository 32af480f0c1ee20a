import type { EventEnvelope } from '@invoicing/contracts';
import { defineEntity, p } from '@mikro-orm/postgresql';
import type { TraceCarrier } from '../tracing.ts';

/**
 * A row of a service's outbox, as `outboxTableSql` then `outboxClaimColumnsSql` make the table.
 * Metadata only, so that `sqlOf` names the table and its columns; the migrations own the table.
 */
export const OutboxEntity = defineEntity({
  name: 'Outbox',
  tableName: 'outbox',
  properties: {
    id: p.uuid().primary(),
    subject: p.text(),
    envelope: p.json<EventEnvelope>(),
    /** The W3C trace context of the request that added the row; null with tracing off. */
    traceContext: p.json<TraceCarrier>().nullable(),
    createdAt: p.datetime().defaultRaw('clock_timestamp()'),
    publishedAt: p.datetime().nullable(),
    /** The lease of the relay publishing the row; null while free, or once released after a failed publish. */
    claimedUntil: p.datetime().nullable(),
  },
});
