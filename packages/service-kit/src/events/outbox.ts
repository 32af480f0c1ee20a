import type { EventEnvelope } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { Orm } from '../database.ts';
import type { KitDatabase } from '../kit-entities.ts';
import { OutboxEntity } from './outbox.entity.ts';
import { PeriodicTask } from '../periodic-task.ts';
import { captureTraceContext, withTraceContext, type TraceCarrier } from '../tracing.ts';
import { entityColumns, nowPlus, sqlOf } from '../typed-sql.ts';
import type { EventBus } from './event-bus.ts';
import { DUPLICATE_WINDOW_MS } from './jetstream-bus.ts';

/** An event to add to the outbox, with the trace context of the request it reports (null with tracing off). */
export interface OutboxEntry {
  envelope: EventEnvelope;
  traceContext: TraceCarrier | null;
}

/** The outbox row of an entry, as its table's columns: for statements that write it beside the change it reports. */
export const outboxColumns = (em: EntityManager, { envelope, traceContext }: OutboxEntry) =>
  entityColumns(em, OutboxEntity, { id: envelope.id, subject: envelope.type, envelope, traceContext });

/**
 * Adds an event to the outbox inside the caller's transaction, so it commits or rolls back with
 * the state change it reports, with the trace context of the active request (null with tracing
 * off). Table: `outboxTableSql` then `outboxClaimColumnsSql`.
 */
export const addToOutbox = async (tx: EntityManager, schema: string, envelope: EventEnvelope): Promise<void> => {
  await sqlOf<KitDatabase>(tx, schema)
    .insertInto('outbox')
    .values(outboxColumns(tx, { envelope, traceContext: captureTraceContext() ?? null }))
    .execute();
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
  readonly #loop: PeriodicTask;
  #lastPurge = 0;

  constructor(options: OutboxRelayOptions) {
    this.#options = { pollMs: 500, batchSize: 100, keepPublishedMs: 7 * 24 * 3600_000, leaseMs: 30_000, ...options };
    if (this.#options.leaseMs > DUPLICATE_WINDOW_MS / 4) {
      throw new Error(`outbox lease of ${this.#options.leaseMs} ms is too close to the bus's duplicate window (${DUPLICATE_WINDOW_MS} ms): a taken-over batch could be delivered twice`);
    }
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
    const { bus } = this.#options;
    const rows = await this.#claim();
    if (!rows.length) return 0;
    // Every publish is sent before any ack is awaited; one connection keeps them in this order.
    const outcomes = await Promise.allSettled(rows.map((row) => withTraceContext(row.trace_context, () => bus.publish(row.envelope))));
    const published = rows.filter((_, i) => outcomes[i]!.status === 'fulfilled').map((row) => row.id);
    const failed = rows.filter((_, i) => outcomes[i]!.status === 'rejected').map((row) => row.id);
    await this.#mark(published, failed, rows[0]!.lease);
    const failure = outcomes.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected');
    if (failure) throw failure.reason;
    return published.length;
  }

  /** Outside any transaction: the claim commits on its own, before the publishes. */
  #sql() {
    return sqlOf<KitDatabase>(this.#options.orm.em.fork(), this.#options.schema);
  }

  /**
   * Leases the oldest free rows in one statement. The subquery walks the partial index
   * `outbox_unpublished` in (created_at, id) order, skipping rows another relay is claiming; the
   * outer select orders the claimed rows, since RETURNING alone guarantees no order. `lease` is the
   * claim's end as PostgreSQL's text (microseconds), so that releasing compares it exactly.
   */
  #claim() {
    const { batchSize, leaseMs } = this.#options;
    return this.#sql()
      .with('claimed', (db) =>
        db
          .updateTable('outbox')
          .set({ claimed_until: nowPlus(leaseMs, 'millisecond') })
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('outbox')
              .select('id')
              .where('published_at', 'is', null)
              .where((eb) => eb.or([eb('claimed_until', 'is', null), eb('claimed_until', '<', sql<Date>`now()`)]))
              .orderBy('created_at')
              .orderBy('id')
              .limit(batchSize)
              .forUpdate()
              .skipLocked(),
          )
          .returning(['id', 'envelope', 'trace_context', 'created_at', 'claimed_until']),
      )
      .selectFrom('claimed')
      .select((eb) => ['id', 'envelope', 'trace_context', eb.cast<string>('claimed_until', 'text').as('lease')])
      .orderBy('created_at')
      .orderBy('id')
      .execute();
  }

  /**
   * Marks the published rows and releases the failed ones, in one statement. A failed row is
   * released only while the claim is still this batch's: after a lease that ran out, the row may
   * already belong to another relay.
   */
  async #mark(published: string[], failed: string[], lease: string): Promise<void> {
    await this.#sql()
      .updateTable('outbox')
      .set((eb) => ({
        published_at: eb
          .case()
          .when('id', '=', eb.fn.any(eb.val(published)))
          .then(sql<Date>`now()`)
          .end(),
        claimed_until: null,
      }))
      .where((eb) =>
        eb.or([
          eb('id', '=', eb.fn.any(eb.val(published))),
          eb.and([eb('id', '=', eb.fn.any(eb.val(failed))), eb('claimed_until', '=', sql<Date>`${lease}::timestamptz`)]),
        ]),
      )
      .execute();
  }

  /** Rows committed but not yet published, and the age of the oldest in ms: the outbox lag. */
  async lag(): Promise<{ pending: number; oldestMs: number }> {
    const row = await this.#sql()
      .selectFrom('outbox')
      .select((eb) => [eb.fn.countAll<string>().as('pending'), sql<string | null>`extract(epoch from now() - ${eb.fn.min('created_at')}) * 1000`.as('oldest_ms')])
      .where('published_at', 'is', null)
      .executeTakeFirst();
    return { pending: Number(row?.pending ?? 0), oldestMs: Number(row?.oldest_ms ?? 0) };
  }

  async #purge(): Promise<void> {
    if (Date.now() - this.#lastPurge < 3600_000) return;
    this.#lastPurge = Date.now();
    await this.#sql()
      .deleteFrom('outbox')
      .where('published_at', '<', nowPlus(-this.#options.keepPublishedMs, 'millisecond'))
      .execute();
  }
}
