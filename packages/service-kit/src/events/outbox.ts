import type { EventEnvelope } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Orm } from '../database.ts';
import type { EventBus } from './event-bus.ts';

/**
 * Adds an event to the outbox inside the caller's transaction, so it commits or rolls back
 * with the state change it reports. Table: `<schema>.outbox (id uuid primary key, subject text,
 * envelope jsonb, created_at timestamptz default clock_timestamp(), published_at timestamptz)`.
 */
export const addToOutbox = async (tx: EntityManager, schema: string, envelope: EventEnvelope): Promise<void> => {
  await tx.execute(`insert into "${schema}".outbox (id, subject, envelope) values (?, ?, ?)`, [
    envelope.id,
    envelope.type,
    JSON.stringify(envelope),
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
}

const MAX_BACKOFF_MS = 30_000;

/**
 * Publishes committed outbox rows in order until the bus holds them. Rows are claimed with
 * `FOR UPDATE SKIP LOCKED`, so several replicas share the work; a row published twice (a crash
 * between publish and mark) is absorbed by the event id as `Nats-Msg-Id`.
 */
export class OutboxRelay {
  readonly #options: Required<OutboxRelayOptions>;
  #running = false;
  #wake: (() => void) | undefined;
  #nudged = false;
  #loop: Promise<void> | undefined;
  #lastPurge = 0;

  constructor(options: OutboxRelayOptions) {
    this.#options = { pollMs: 500, batchSize: 100, keepPublishedMs: 7 * 24 * 3600_000, ...options };
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#loop = this.#run();
  }

  /** Call after a commit that added rows, so they go out now instead of at the next poll. */
  nudge(): void {
    // A nudge while a batch is out is kept: its rows may have committed after that batch's claim.
    this.#nudged = true;
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#running = false;
    this.nudge();
    await this.#loop;
  }

  /** Publishes one batch; returns how many rows went out. A failed publish still marks those before it. */
  async relayBatch(): Promise<number> {
    const { orm, schema, bus, batchSize } = this.#options;
    let failure: unknown;
    const count = await orm.em.fork().transactional(async (tx) => {
      const rows = await tx.execute<{ id: string; envelope: EventEnvelope }[]>(
        `select id, envelope from "${schema}".outbox where published_at is null order by created_at, id limit ? for update skip locked`,
        [batchSize],
      );
      const published: string[] = [];
      for (const row of rows) {
        try {
          await bus.publish(row.envelope);
        } catch (error) {
          failure = error;
          break;
        }
        published.push(row.id);
      }
      if (published.length) {
        await tx.execute(`update "${schema}".outbox set published_at = now() where id in (?)`, [published]);
      }
      return published.length;
    });
    if (failure) throw failure;
    return count;
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

  async #run(): Promise<void> {
    let backoffMs = 0;
    while (this.#running) {
      let published = 0;
      this.#nudged = false;
      try {
        published = await this.relayBatch();
        await this.#purge();
        backoffMs = 0;
      } catch (error) {
        this.#options.onError(error);
        backoffMs = Math.min(MAX_BACKOFF_MS, Math.max(250, backoffMs * 2));
      }
      if (published === this.#options.batchSize && backoffMs === 0) continue;
      if (this.#nudged && backoffMs === 0) continue;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, backoffMs || this.#options.pollMs);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
    }
  }
}
