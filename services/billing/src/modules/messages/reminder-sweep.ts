import { randomUUID } from 'node:crypto';
import type { Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import { invoiceNowOnItsClock } from '../test-clocks/test-clock.repository.ts';
import type { BillingDatabase } from '../../database.ts';
import type { Actor } from '../../shared/actor.ts';
import type { CatalogReader } from '../../shared/catalog.ts';
import { batchSweep } from '../../shared/batch-sweep.ts';
import { localDateOf } from '../../shared/clock.ts';
import { defaultAccount } from '../account/account.domain.ts';
import { invoiceView } from '../invoices/invoice.domain.ts';
import { InvoiceEntity } from '../invoices/invoice.entity.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import { attachableKinds, reminderDue } from './message.domain.ts';
import { followCustomerEmailStatus, queueMessage } from './queue-message.ts';

export interface ReminderSweepOptions {
  orm: Orm;
  clock: Clock;
  catalog: CatalogReader;
  publicUrlBase: string;
  intervalMs: number;
  /** A commit queued messages (the worker sends them) and maybe events (the relay publishes them). */
  announce: () => void;
  onError: (error: unknown) => void;
  batchSize?: number;
}

/**
 * Queues the reminders that came due: for each open invoice (overdue included) whose workspace
 * has `reminder_days`, the latest reminder day (due date + offset, in the workspace's time zone)
 * that has come and is later than its last reminder. Invoices are claimed FOR UPDATE SKIP LOCKED
 * and their `last_reminder_on` moved in the transaction that queues the message, so replicas
 * sweeping at once never queue one twice; the unique (invoice, day) index holds it besides. Days
 * missed while nothing ran are caught up once: only the latest of them is sent. Paid and void
 * invoices are never claimed, so reminders stop with payment or voiding.
 */
export class ReminderSweep {
  readonly #options: Required<ReminderSweepOptions>;
  readonly #sweep: ReturnType<typeof batchSweep>;

  constructor(options: ReminderSweepOptions) {
    this.#options = { batchSize: 50, ...options };
    this.#sweep = batchSweep(this.#options, async (tx) => {
      const { claimed, queued } = await this.#remindBatch(tx);
      return { claimed, done: queued };
    });
  }

  start(): void {
    this.#sweep.start();
  }

  stop(): Promise<void> {
    return this.#sweep.stop();
  }

  /** Sweeps until nothing is due; returns how many reminders it queued. */
  sweepOnce(): Promise<number> {
    return this.#sweep.sweepOnce();
  }

  /** The same sweep over one test clock's invoices only, at its time (the clock's stepper runs it at each step). */
  sweepClock(testClockId: string): Promise<number> {
    return batchSweep({ ...this.#options, intervalMs: 0 }, async (tx) => {
      const { claimed, queued } = await this.#remindBatch(tx, testClockId);
      return { claimed, done: queued };
    }).sweepOnce();
  }

  /** `testClockId`: only that clock's invoices; none: every invoice, each at its own "now" (its clock's time, or real time). */
  async #remindBatch(tx: EntityManager, testClockId?: string): Promise<{ claimed: number; queued: number }> {
    const { clock, batchSize, publicUrlBase, catalog } = this.#options;
    const realNow = clock.now();
    // Open invoices with a due date in workspaces that set reminder days, whose latest reminder day
    // up to today (in the workspace's time zone) is later than the last one sent. The day itself is
    // computed again in TypeScript (reminderDue) from the row, the same rule the SQL narrows by.
    const nowOf = invoiceNowOnItsClock(realNow);
    let query = sqlOf<BillingDatabase>(tx)
      .selectFrom('invoices as i')
      .innerJoin('accounts as a', 'a.workspace_id', 'i.workspace_id')
      .leftJoin('test_clocks as c', 'c.id', 'i.test_clock_id')
      .select(['i.id', 'i.workspace_id', 'a.timezone', nowOf.as('now')])
      .where('i.status', '=', 'open')
      .where('i.due_date', 'is not', null)
      .where(sql<boolean>`jsonb_array_length(${sql.ref('a.reminder_days')}) > 0`)
      .where(
        sql<boolean>`exists (select 1 from jsonb_array_elements_text(${sql.ref('a.reminder_days')}) as d (days)
          where ${sql.ref('i.due_date')} + d.days::int <= cast(timezone(${sql.ref('a.timezone')}, ${nowOf}) as date)
          and ${sql.ref('i.due_date')} + d.days::int >= cast(timezone(${sql.ref('a.timezone')}, ${sql.ref('i.finalized_at')}) as date)
          and (${sql.ref('i.last_reminder_on')} is null or ${sql.ref('i.due_date')} + d.days::int > ${sql.ref('i.last_reminder_on')}))`,
      );
    if (testClockId !== undefined) query = query.where('i.test_clock_id', '=', testClockId);
    const claimed = await query
      .orderBy('i.due_date')
      .orderBy('i.id')
      .limit(batchSize)
      .forUpdate('i')
      .skipLocked()
      .execute();
    if (claimed.length === 0) return { claimed: 0, queued: 0 };
    let queued = 0;
    const correlationId = `reminder-sweep-${randomUUID()}`;
    const invoices = invoiceRepository(tx);
    for (const { id, workspace_id: workspaceId, now: claimedNow } of claimed) {
      const now = new Date(claimedNow);
      const loaded = await invoices.findWithLinesAndSettings(workspaceId, id);
      if (!loaded) continue;
      const account = loaded.account ?? defaultAccount(workspaceId, now);
      const today = localDateOf(now, account.timezone).date;
      const finalizedOn = localDateOf(loaded.invoice.finalizedAt ?? now, account.timezone).date;
      const day = reminderDue(loaded.invoice.dueDate!, account.reminderDays, today, loaded.invoice.lastReminderOn ?? null, finalizedOn);
      if (!day) continue;
      // The day counts as handled whatever follows, so a customer without an address is not asked again every sweep.
      await tx.nativeUpdate(InvoiceEntity, { id }, { lastReminderOn: day });
      const actor: Actor = { workspaceId, keyId: null, requestId: correlationId, idempotencyKey: null };
      const customer = await catalog.customer(actor, loaded.invoice.customerId).catch(() => undefined);
      await followCustomerEmailStatus(tx, workspaceId, customer);
      const address = customer?.email ?? loaded.invoice.customerSnapshot?.email ?? null;
      if (!address) continue;
      const invoice = invoiceView(loaded.invoice, loaded.lines, { today, publicUrlBase });
      const row = await queueMessage(tx, { kind: 'reminder', invoice, to: [address], cc: [], note: null, kinds: attachableKinds(invoice, account.emailAttachments), reminderOn: day, actor, now });
      if (row) queued += 1;
    }
    return { claimed: claimed.length, queued };
  }
}
