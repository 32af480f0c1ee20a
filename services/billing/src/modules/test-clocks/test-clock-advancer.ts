import { randomUUID } from 'node:crypto';
import { PeriodicTask, type Orm } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { nextStep } from './test-clock.domain.ts';
import type { TestClockRow } from './test-clock.entity.ts';
import { testClockRepository } from './test-clock.repository.ts';

/** The time-driven rules, run for one clock at its time, in this order, at every step. */
export interface ClockRules {
  /** Subscriptions: every period begun by `at` invoiced (through billing's API, as the scheduler does). */
  runSubscriptions: (actor: Actor, clockId: string, at: Date) => Promise<number>;
  /** The overdue sweep over the clock's invoices (`invoice.overdue`, once each). */
  sweepOverdue: (clockId: string) => Promise<number>;
  /** Reminders due on the clock's invoices, queued (once per invoice and day). */
  sendReminders: (clockId: string) => Promise<number>;
  /** The mail worker looks for due messages now. */
  nudgeMail: () => void;
}

export interface TestClockAdvancerOptions {
  orm: Orm;
  rules: ClockRules;
  /** How long a replica holds a clock it steps; renewed at each step. */
  leaseMs: number;
  pollMs: number;
  onError: (error: unknown) => void;
}

/**
 * Moves advancing test clocks to their targets, one day at a time (the last step lands on the
 * target): each step commits the clock's new time, then runs the rules due by it. A clock is
 * claimed under a lease (SKIP LOCKED), so replicas step different clocks and one whose replica died
 * is taken over. Taken (again), a clock first runs its rules at the time it stands at: a step whose
 * time was committed before a crash gets them then. Every rule marks what it did, so running one
 * again at the same time does nothing twice.
 */
export class TestClockAdvancer {
  readonly #options: TestClockAdvancerOptions;
  readonly #task: PeriodicTask;

  constructor(options: TestClockAdvancerOptions) {
    this.#options = options;
    this.#task = new PeriodicTask({ intervalMs: options.pollMs, run: () => this.runOnce(), onError: options.onError, backoff: { firstMs: 250, maxMs: 10_000 } });
  }

  start(): void {
    this.#task.start();
  }

  stop(): Promise<void> {
    return this.#task.stop();
  }

  /** An advance was committed: look now. */
  nudge(): void {
    this.#task.nudge();
  }

  /** One clock moved to its target; answers whether another may wait. */
  async runOnce(): Promise<boolean> {
    const clocks = testClockRepository(this.#options.orm.em.fork());
    const claimed = await clocks.claimAdvancing(this.#options.leaseMs);
    if (!claimed) return false;
    try {
      await this.#advance(claimed);
    } catch (error) {
      await clocks.release(claimed.id).catch(() => {});
      throw error;
    }
    return true;
  }

  async #advance(clock: TestClockRow): Promise<void> {
    const clocks = testClockRepository(this.#options.orm.em.fork());
    const target = clock.advanceTo!;
    const actor: Actor = { workspaceId: clock.workspaceId, keyId: null, requestId: `test-clock-${randomUUID()}`, idempotencyKey: null };
    let at = clock.frozenTime;
    await this.#runRules(actor, clock.id, at);
    while (at.getTime() < target.getTime()) {
      at = nextStep(at, target);
      // Deleted meanwhile (only a ready clock can be, so this is a takeover's stale view): nothing left to move.
      if (!(await clocks.moveTo(clock.id, at, this.#options.leaseMs))) return;
      await this.#runRules(actor, clock.id, at);
    }
    await clocks.finish(clock.id);
  }

  async #runRules(actor: Actor, clockId: string, at: Date): Promise<void> {
    const { rules } = this.#options;
    await rules.runSubscriptions(actor, clockId, at);
    await rules.sweepOverdue(clockId);
    await rules.sendReminders(clockId);
    rules.nudgeMail();
  }
}
