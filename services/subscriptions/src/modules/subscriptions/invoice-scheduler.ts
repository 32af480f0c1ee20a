import { randomUUID } from 'node:crypto';
import { parsePublicId, SUBSCRIPTIONS_SUBJECTS, type CreateSubscriptionInvoiceBody } from '@invoicing/contracts';
import { PeriodicTask, unavailable, type Orm } from '@invoicing/service-kit';
import { fixedClock, type Clock } from '@invoicing/service-kit/clock';
import { systemActor, type Actor } from '../../shared/actor.ts';
import { addSubscriptionEvent } from '../../shared/events.ts';
import type { BillingClient } from '../../shared/upstreams.ts';
import { localDate, periodStart, startOfDay } from './billing-calendar.domain.ts';
import { cadenceOf, invoiceRequest, nextActionAt, periodKey, subscriptionView } from './subscription.domain.ts';
import type { SubscriptionItemRow, SubscriptionRow } from './subscription.entity.ts';
import { subscriptionRepository } from './subscription.repository.ts';

export interface InvoiceSchedulerOptions {
  orm: Orm;
  clock: Clock;
  billing: BillingClient;
  intervalMs: number;
  /** Subscriptions invoiced at once by this replica. */
  concurrency: number;
  /** How long a claim holds a subscription against the other replicas. */
  leaseMs: number;
  announce: () => void;
  onError: (error: unknown) => void;
  /** Billing refused a period's invoice (a deleted customer, an archived price): told once per attempt. */
  onRefused: (subscriptionId: string, reason: string) => void;
}

/** How long a subscription whose invoice billing refused waits before it is tried again. */
export const REFUSED_RETRY_MS = 3600_000;

const isKeyInUse = (problem: { code?: string }) => problem.code === 'idempotency_key_in_use';

/**
 * Invoices every period that has begun, once. Subscriptions with something due are claimed with
 * `for update skip locked` and a lease, so replicas share them and never work on one together;
 * each claimed subscription's periods are invoiced in order, each by keyed writes to billing whose
 * keys derive from (subscription, period start): the request is stored before it is sent, so a
 * retry after a crash, on this replica or another, sends the same body under the same key and
 * billing answers with the invoice it made the first time instead of making another. Periods
 * missed while the service was down are simply due: they are invoiced, oldest first, once it is back.
 */
export class InvoiceScheduler {
  readonly #options: InvoiceSchedulerOptions;
  readonly #task: PeriodicTask;

  constructor(options: InvoiceSchedulerOptions) {
    this.#options = options;
    this.#task = new PeriodicTask({
      intervalMs: options.intervalMs,
      run: () => this.runOnce(),
      onError: options.onError,
      backoff: { firstMs: Math.min(500, options.intervalMs), maxMs: Math.max(10_000, options.intervalMs) },
    });
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }

  /** Look now: a subscription was created (its first period may have begun). */
  nudge(): void {
    this.#task.nudge();
  }

  /** One claim's worth: answers whether more may be due (the claim was full). */
  async runOnce(): Promise<boolean> {
    const { orm, clock, concurrency, leaseMs } = this.#options;
    const limit = concurrency * 2;
    const now = clock.now();
    const claimed = await subscriptionRepository(orm.em.fork()).claimDue({ dueBy: now, now, leaseMs, limit });
    if (claimed.length === 0) return false;
    const timeZones = new Map<string, Promise<string>>();
    const queue = [...claimed];
    const failures: unknown[] = [];
    const worker = async () => {
      for (let row = queue.shift(); row; row = queue.shift()) {
        try {
          await this.#invoiceDue(row, timeZones, clock);
        } catch (error) {
          failures.push(error);
          // Free at once: the next tick, after the back-off, tries it again.
          await subscriptionRepository(orm.em.fork())
            .release(row.id, null, row.lastError ?? null)
            .catch(() => {});
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, claimed.length) }, worker));
    if (failures.length > 0) throw failures[0];
    return claimed.length === limit;
  }

  /**
   * A test clock's subscriptions, invoiced at the clock's time `at` as runOnce does in real time
   * (billing's clock stepper asks, at each step): answers how many periods were invoiced.
   */
  async runClock(workspaceId: string, testClockId: string, at: Date): Promise<number> {
    const { orm, clock: realClock, leaseMs } = this.#options;
    const clock = fixedClock(at);
    const claimed = await subscriptionRepository(orm.em.fork()).claimDue({ dueBy: at, now: realClock.now(), leaseMs, testClock: { workspaceId, id: testClockId } });
    const timeZones = new Map<string, Promise<string>>();
    let invoiced = 0;
    for (const row of claimed) {
      try {
        invoiced += await this.#invoiceDue(row, timeZones, clock);
      } finally {
        await subscriptionRepository(orm.em.fork())
          .release(row.id, null, null)
          .catch(() => {});
      }
    }
    return invoiced;
  }

  /** Every period of one claimed subscription due by `clock`, oldest first, then its next action; answers how many were invoiced. */
  async #invoiceDue(claimed: SubscriptionRow, timeZones: Map<string, Promise<string>>, clock: Clock): Promise<number> {
    const { orm, billing } = this.#options;
    const em = orm.em.fork();
    const subscriptions = subscriptionRepository(em);
    const actor = systemActor(claimed.workspaceId, `subscriptions-${randomUUID()}`);
    // The workspace's time zone as billing's account has it now, read once per workspace and tick.
    let timeZone = timeZones.get(claimed.workspaceId);
    if (!timeZone) {
      timeZone = billing.timeZone(actor.caller);
      timeZones.set(claimed.workspaceId, timeZone);
      timeZone.catch(() => timeZones.delete(claimed.workspaceId));
    }
    let row: SubscriptionRow = { ...claimed, timeZone: await timeZone };
    const items = await subscriptions.itemsOf(row.id);
    for (let invoiced = 0; ; invoiced += 1) {
      const now = clock.now();
      const today = localDate(now, row.timeZone);
      const start = periodStart(row.startDate, cadenceOf(row), row.periodsInvoiced);
      if (row.cancelAt != null && start >= row.cancelAt) {
        if (row.cancelAt <= today) await this.#cancelAsScheduled(row, items, actor, now);
        else await this.#reschedule(row);
        return invoiced;
      }
      if (start > today) {
        await this.#reschedule(row);
        return invoiced;
      }
      const next = await this.#invoicePeriod(row, items, actor, clock);
      if (!next) return invoiced;
      row = next;
    }
  }

  /**
   * Period `periodsInvoiced`'s invoice: its request stored (or the one stored before), the draft
   * made and finalized by keyed writes, then the period recorded and the subscription moved past
   * it with its `subscription.updated` event. Answers the subscription after it, or undefined
   * when billing refused and the subscription waits.
   */
  async #invoicePeriod(row: SubscriptionRow, items: readonly SubscriptionItemRow[], actor: Actor, clock: Clock): Promise<SubscriptionRow | undefined> {
    const { orm, billing, announce, onRefused } = this.#options;
    const em = orm.em.fork();
    const subscriptions = subscriptionRepository(em);
    const index = row.periodsInvoiced;
    const { period, body } = invoiceRequest(row, items, index);
    const stored = await subscriptions.periodRequest({
      subscriptionId: row.id,
      periodStart: period.start,
      workspaceId: row.workspaceId,
      periodEnd: period.lastDay,
      request: body,
      invoiceId: null,
      finalized: false,
      createdAt: clock.now(),
    });
    // A request stored before billing took `period_start` lacks it: the period's own start, as invoiceRequest now puts it.
    const request = { ...(stored.request as CreateSubscriptionInvoiceBody), period_start: stored.periodStart };
    const created = await billing.createInvoice(actor.caller, request, periodKey(row, period.start, 'create'));
    if (!created.ok) {
      if (created.status === 409 && isKeyInUse(created.problem)) throw unavailable('billing is still writing this period’s invoice; retry later.');
      const reason = `billing refused the invoice of the period from ${period.start}: ${created.status} ${created.problem.code ?? ''} ${created.problem.detail ?? ''}`.trim();
      onRefused(row.id, reason);
      await subscriptions.release(row.id, new Date(clock.now().getTime() + REFUSED_RETRY_MS), reason);
      return undefined;
    }
    const invoice = created.data.data;
    const invoiceId = parsePublicId('invoice', invoice.id)!;
    let finalized = invoice.status !== 'draft';
    let lastError: string | null = null;
    if (row.invoiceBehavior === 'finalize' && !finalized) {
      const answer = await billing.finalizeInvoice(actor.caller, invoiceId, periodKey(row, period.start, 'finalize'));
      if (answer.ok) finalized = true;
      else if (answer.status === 409 && isKeyInUse(answer.problem)) throw unavailable('billing is still finalizing this period’s invoice; retry later.');
      else {
        // The draft stands (deleted by hand, or refused by a rule of the account): the period has its invoice, and the next one comes as due.
        lastError = `billing did not finalize ${invoice.id}: ${answer.status} ${answer.problem.code ?? ''} ${answer.problem.detail ?? ''}`.trim();
        onRefused(row.id, lastError);
      }
    }
    const now = clock.now();
    const moved = await em.transactional(async (tx) => {
      const repository = subscriptionRepository(tx);
      // The subscription as it is now, locked: a change made while billing answered (a cancel_at,
      // metadata, days until due) decides what comes next and shows in the event. Another replica
      // that moved it on, or a cancellation, leaves this period's invoice as it is and stops here.
      const locked = await repository.findForUpdate(tx, row.workspaceId, row.id);
      if (!locked || locked.status !== 'active' || locked.periodsInvoiced !== index) return undefined;
      const next: SubscriptionRow = { ...locked, timeZone: row.timeZone, periodsInvoiced: index + 1, updatedAt: now, lastError };
      next.nextActionAt = nextActionAt(next);
      if (!(await repository.completePeriod(tx, { subscriptionId: row.id, periodStart: period.start, invoiceId, finalized, index }, next))) return undefined;
      await addSubscriptionEvent(tx, SUBSCRIPTIONS_SUBJECTS.subscriptionUpdated, { object: subscriptionView(next, await repository.itemsOf(row.id), now) }, actor.origin, now);
      return next;
    });
    if (!moved) return undefined;
    announce();
    return moved;
  }

  /** The scheduled cancellation has come: canceled as of the start of `cancel_at`, with its event. */
  async #cancelAsScheduled(row: SubscriptionRow, items: readonly SubscriptionItemRow[], actor: Actor, now: Date): Promise<void> {
    const em = this.#options.orm.em.fork();
    const canceled: SubscriptionRow = { ...row, status: 'canceled', canceledAt: startOfDay(row.cancelAt!, row.timeZone), nextActionAt: null, claimedUntil: null, updatedAt: now };
    await em.transactional(async (tx) => {
      const locked = await subscriptionRepository(tx).findForUpdate(tx, row.workspaceId, row.id);
      if (!locked || locked.status !== 'active' || locked.cancelAt !== row.cancelAt) return;
      tx.assign(locked, { status: 'canceled', canceledAt: canceled.canceledAt, nextActionAt: null, claimedUntil: null, updatedAt: now, timeZone: row.timeZone });
      await addSubscriptionEvent(tx, SUBSCRIPTIONS_SUBJECTS.subscriptionCanceled, { object: subscriptionView(canceled, items, now) }, actor.origin, now);
    });
    this.#options.announce();
  }

  /** Nothing more is due yet: the next action at its time in the workspace's zone, and the claim given back. */
  async #reschedule(row: SubscriptionRow): Promise<void> {
    const em = this.#options.orm.em.fork();
    await em.transactional(async (tx) => {
      const locked = await subscriptionRepository(tx).findForUpdate(tx, row.workspaceId, row.id);
      if (!locked || locked.status !== 'active') return;
      locked.timeZone = row.timeZone;
      tx.assign(locked, { nextActionAt: nextActionAt(locked), claimedUntil: null });
    });
  }
}
