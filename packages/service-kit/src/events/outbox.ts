import type { EventEnvelope } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../database.ts';
import { PeriodicTask } from '../periodic-task.ts';
import { captureTraceContext, withTraceContext, type TraceCarrier } from '../tracing.ts';
import type { EventBus } from './event-bus.ts';
import { DUPLICATE_WINDOW_MS } from './jetstream-bus.ts';

/**
 * The `trace_context` of an outbox row added now, as a JSON parameter: the active request's trace
 * context, or null when tracing is off (then it costs one check). For services that write outbox
 * rows in their own statements instead of through `addToOutbox`.
 */
export const outboxTraceContext = (): string | null => {
  const carrier = captureTraceContext();
  return carrier ? JSON.stringify(carrier) : null;
};

/**
 * Adds an event to the outbox inside the caller's transaction, so it commits or rolls back with
 * the state change it reports. Table: `outboxTableSql` then `outboxClaimColumnsSql`.
 */
export const addToOutbox = async (tx: EntityManager, schema: string, envelope: EventEnvelope): Promise<void> => {
  await tx.execute(`insert into "${schema}".outbox (id, subject, envelope, trace_context) values (?, ?, ?, ?)`, [
    envelope.id,
    envelope.type,
    JSON.stringify(envelope),
    outboxTraceContext(),
  ]);
};

export interface OutboxRelayOptions {
  orm: Orm;
  schema: string;
  bus: EventBus;
  onError: (error: unknown) => void;
  /** How often to look for rows when nobody nudges. */
  pollMs?: number;
  batchSize?: number;
  /** Published rows older than this are deleted. */
  keepPublishedMs?: number;
  /** How long a claim keeps other relays off a batch; after it, a relay that died is taken over. */
  leaseMs?: number;
}

/** After a failed batch the relay waits this long, doubling up to `maxMs` while batches keep failing. */
const BACKOFF = { firstMs: 250, maxMs: 30_000 };

interface ClaimedRow {
  id: string;
  envelope: EventEnvelope;
  trace_context: TraceCarrier | null;
  /** The claim's lease, as PostgreSQL's text (microseconds): releasing compares it exactly. */
  claimed_until: string;
}

/** A uuid[] literal; the ids come from the table, so they need no quoting. */
const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

/**
 * Publishes committed outbox rows until the bus holds them, in (created_at, id) order, with two
 * statements per batch and no transaction held across a publish:
 *
 * 1. claim: one autocommit statement leases the oldest free rows (`claimed_until`), skipping rows
 *    another relay is claiming at that moment, so several replicas share the work;
 * 2. publish them all, each in the trace context of the request that added it, then wait for the acks;
 * 3. mark the published rows, and release the claim of those that failed so they go out after the
 *    back-off rather than after the lease: again one statement.
 *
 * A relay that dies between 1 and 3 leaves its rows claimed; once the lease ends another relay
 * publishes them again. Some of them may already be on the bus: JetStream drops that copy because
 * the event id is the `Nats-Msg-Id`, but only inside its duplicate window, which is why the lease
 * must end well within that window (checked in the constructor).
 */
export class OutboxRelay {
  readonly #options: Required<OutboxRelayOptions>;
  readonly #claimSql: string;
  readonly #markSql: string;
  readonly #loop: PeriodicTask;
  #lastPurge = 0;

  constructor(options: OutboxRelayOptions) {
    this.#options = { pollMs: 500, batchSize: 100, keepPublishedMs: 7 * 24 * 3600_000, leaseMs: 30_000, ...options };
    if (this.#options.leaseMs > DUPLICATE_WINDOW_MS / 4) {
      throw new Error(`outbox lease of ${this.#options.leaseMs} ms is too close to the bus's duplicate window (${DUPLICATE_WINDOW_MS} ms): a taken-over batch could be delivered twice`);
    }
    const outbox = `"${options.schema}".outbox`;
    // The subquery walks the partial index `outbox_unpublished` in order; the outer select orders
    // the claimed rows, since RETURNING alone guarantees no order.
    this.#claimSql = `
      with claimed as (
        update ${outbox} set claimed_until = now() + ? * interval '1 millisecond'
         where id in (select id from ${outbox}
                       where published_at is null and (claimed_until is null or claimed_until < now())
                       order by created_at, id
                       limit ?
                         for update skip locked)
        returning id, envelope, trace_context, created_at, claimed_until)
      select id, envelope, trace_context, claimed_until::text as claimed_until from claimed order by created_at, id`;
    // A failed row is released only while the claim is still this batch's: after a lease that ran
    // out, the row may already belong to another relay.
    this.#markSql = `
      update ${outbox}
         set published_at = case when id = any(?::uuid[]) then now() end,
             claimed_until = null
       where id = any(?::uuid[]) or (id = any(?::uuid[]) and claimed_until = ?::timestamptz)`;
    this.#loop = new PeriodicTask({
      intervalMs: this.#options.pollMs,
      backoff: BACKOFF,
      onError: this.#options.onError,
      // A full batch may mean more rows are waiting.
      run: async () => {
        const published = await this.relayBatch();
        await this.#purge();
        return published === this.#options.batchSize;
      },
    });
  }

  start(): void {
    this.#loop.start();
  }

  /** Call after a commit that added rows, so they go out now instead of at the next poll. */
  nudge(): void {
    // A nudge while a batch is out is kept by the loop: its rows may have committed after that batch's claim.
    this.#loop.nudge();
  }

  stop(): Promise<void> {
    return this.#loop.stop();
  }

  /**
   * Publishes one batch; returns how many rows went out. When a publish fails, the others are
   * still marked, the failed ones released, and the first failure thrown.
   */
  async relayBatch(): Promise<number> {
    const { orm, bus, batchSize, leaseMs } = this.#options;
    const rows = await orm.em.fork().execute<ClaimedRow[]>(this.#claimSql, [leaseMs, batchSize]);
    if (!rows.length) return 0;
    // Every publish is sent before any ack is awaited; one connection keeps them in this order.
    const outcomes = await Promise.allSettled(rows.map((row) => withTraceContext(row.trace_context, () => bus.publish(row.envelope))));
    const published = rows.filter((_, i) => outcomes[i]!.status === 'fulfilled').map((row) => row.id);
    const failed = rows.filter((_, i) => outcomes[i]!.status === 'rejected').map((row) => row.id);
    await orm.em.fork().execute(this.#markSql, [uuidArray(published), uuidArray(published), uuidArray(failed), rows[0]!.claimed_until]);
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    return published.length;
  }

  /** Rows committed but not yet published, and the age of the oldest in ms: the outbox lag. */
  async lag(): Promise<{ pending: number; oldestMs: number }> {
    const [row] = await this.#options.orm.em.fork().execute<{ pending: string; oldest_ms: string | null }[]>(
      `select count(*) as pending, extract(epoch from now() - min(created_at)) * 1000 as oldest_ms from "${this.#options.schema}".outbox where published_at is null`,
    );
    return { pending: Number(row?.pending ?? 0), oldestMs: Number(row?.oldest_ms ?? 0) };
  }

  async #purge(): Promise<void> {
    if (Date.now() - this.#lastPurge < 3600_000) return;
    this.#lastPurge = Date.now();
    const { orm, schema, keepPublishedMs } = this.#options;
    await orm.em.fork().execute(`delete from "${schema}".outbox where published_at < now() - (? * interval '1 millisecond')`, [keepPublishedMs]);
  }
}
