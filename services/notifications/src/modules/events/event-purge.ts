import type { Orm } from '@invoicing/service-kit';
import type { Clock } from '../../shared/clock.ts';
import { eventRepository } from './event.repository.ts';

export interface EventPurgeOptions {
  orm: Orm;
  clock: Clock;
  retentionDays: number;
  intervalMs?: number;
  batchSize?: number;
  onError: (error: unknown) => void;
}

/**
 * Deletes events past their retention, with their deliveries and attempts, in small batches so
 * no transaction holds many rows. Several replicas purging at once only share the work.
 */
export class EventPurge {
  readonly #options: Required<EventPurgeOptions>;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(options: EventPurgeOptions) {
    this.#options = { intervalMs: 3600_000, batchSize: 1_000, ...options };
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  /** Purges until nothing old is left; returns how many events went. */
  async purgeOnce(): Promise<number> {
    const { orm, clock, retentionDays, batchSize } = this.#options;
    const before = new Date(clock.now().getTime() - retentionDays * 86_400_000);
    let purged = 0;
    for (;;) {
      const batch = await eventRepository(orm.em.fork()).purgeOlderThan(before, batchSize);
      purged += batch;
      if (batch < batchSize) return purged;
    }
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.purgeOnce()
        .catch(this.#options.onError)
        .finally(() => this.#schedule(this.#options.intervalMs));
    }, delayMs);
  }
}
