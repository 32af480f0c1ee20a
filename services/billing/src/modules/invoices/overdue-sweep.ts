import { randomUUID } from 'node:crypto';
import { BILLING_SUBJECTS } from '@invoicing/contracts';
import type { Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { invoiceNowOnItsClock } from '../test-clocks/test-clock.repository.ts';
import type { BillingDatabase } from '../../database.ts';
import type { Actor } from '../../shared/actor.ts';
import { batchSweep } from '../../shared/batch-sweep.ts';
import { localDateOf } from '../../shared/clock.ts';
import { addBillingEvent } from '../../shared/events.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { timelineRepository } from '../timeline/timeline.repository.ts';
import { invoiceView } from './invoice.domain.ts';
import { InvoiceEntity } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

export interface OverdueSweepOptions {
  orm: Orm;
  clock: Clock;
  publicUrlBase: string;
  intervalMs: number;
  announce: () => void;
  onError: (error: unknown) => void;
  batchSize?: number;
}

/**
 * Emits `billing.invoice.overdue` once per invoice that is open and past its due date in its
 * workspace's time zone. Rows are claimed with FOR UPDATE SKIP LOCKED and marked
 * (`overdue_event_at`) in the transaction that adds the event, so several replicas sweeping at
 * once never emit one twice. Reads do not wait for the sweep: they compute `overdue` themselves.
 */
export class OverdueSweep {
  readonly #options: Required<OverdueSweepOptions>;
  readonly #sweep: ReturnType<typeof batchSweep>;

  constructor(options: OverdueSweepOptions) {
    this.#options = { batchSize: 100, ...options };
    this.#sweep = batchSweep(this.#options, async (tx) => {
      const marked = await this.#markBatch(tx);
      return { claimed: marked, done: marked };
    });
  }

  start(): void {
    this.#sweep.start();
  }

  stop(): Promise<void> {
    return this.#sweep.stop();
  }

  /** Sweeps until nothing is left to mark; returns how many invoices it marked. */
  sweepOnce(): Promise<number> {
    return this.#sweep.sweepOnce();
  }

  /** The same sweep over one test clock's invoices only, at its time (the clock's stepper runs it at each step). */
  sweepClock(testClockId: string): Promise<number> {
    return batchSweep({ ...this.#options, intervalMs: 0 }, async (tx) => {
      const marked = await this.#markBatch(tx, testClockId);
      return { claimed: marked, done: marked };
    }).sweepOnce();
  }

  /** `testClockId`: only that clock's invoices; none: every invoice, each at its own "now" (its clock's time, or real time). */
  async #markBatch(tx: EntityManager, testClockId?: string): Promise<number> {
    const { clock, batchSize, publicUrlBase } = this.#options;
    const realNow = clock.now();
    const nowOf = invoiceNowOnItsClock(realNow);
    let query = sqlOf<BillingDatabase>(tx)
      .selectFrom('invoices as i')
      .leftJoin('accounts as a', 'a.workspace_id', 'i.workspace_id')
      .leftJoin('test_clocks as c', 'c.id', 'i.test_clock_id')
      .select((eb) => ['i.id', eb.fn.coalesce('a.timezone', sql.lit('UTC')).as('timezone'), nowOf.as('now')])
      .where('i.status', '=', 'open')
      .where('i.overdue_event_at', 'is', null)
      // Past due in the workspace's time zone: today there is "now" read on its wall clock; for an invoice on a test clock, the clock's time.
      .where('i.due_date', '<', (eb) =>
        eb.cast(eb.fn('timezone', [eb.fn.coalesce('a.timezone', sql.lit('UTC')), nowOf]), 'date'),
      );
    if (testClockId !== undefined) query = query.where('i.test_clock_id', '=', testClockId);
    const claimed = await query
      .orderBy('i.due_date')
      .orderBy('i.id')
      .limit(batchSize)
      .forUpdate('i')
      .skipLocked()
      .execute();
    if (claimed.length === 0) return 0;
    const timeZones = new Map(claimed.map((row) => [row.id, row.timezone]));
    const nows = new Map(claimed.map((row) => [row.id, new Date(row.now)]));
    const invoices = invoiceRepository(tx);
    const rows = await tx.find(InvoiceEntity, { id: { $in: [...timeZones.keys()] } });
    const lines = await invoices.linesOfEach(rows.map((row) => row.id));
    const correlationId = `overdue-sweep-${randomUUID()}`;
    for (const row of rows) {
      const now = nows.get(row.id) ?? realNow;
      const system: Actor = { workspaceId: row.workspaceId, keyId: null, requestId: correlationId, idempotencyKey: null };
      tx.assign(row, { overdueEventAt: now });
      timelineRepository(tx).add(tx, timelineEntry(row, { type: 'overdue', due_date: row.dueDate! }, system, now));
      const today = localDateOf(now, timeZones.get(row.id) ?? 'UTC').date;
      const view = invoiceView(row, lines.get(row.id) ?? [], { today, publicUrlBase });
      await addBillingEvent(tx, BILLING_SUBJECTS.invoiceOverdue, { object: view }, system, now);
    }
    return claimed.length;
  }
}
