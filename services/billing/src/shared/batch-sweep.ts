import { PeriodicTask, type Orm } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';

export interface BatchSweepOptions {
  orm: Orm;
  intervalMs: number;
  batchSize: number;
  /** A batch claimed rows: its commit may carry events (the relay publishes them) or messages (the mail worker sends them). */
  announce: () => void;
  onError: (error: unknown) => void;
}

/** What one batch did: the rows it claimed (a full batch means more may wait) and the effects it made. */
export interface SweptBatch {
  claimed: number;
  done: number;
}

/**
 * A periodic sweep in batches (overdue events, reminders): each batch claims its rows and makes its
 * effects in a transaction of its own, and the sweep goes on while batches come back full.
 */
export const batchSweep = ({ orm, intervalMs, batchSize, announce, onError }: BatchSweepOptions, sweepBatch: (tx: EntityManager) => Promise<SweptBatch>) => {
  const sweepOnce = async (): Promise<number> => {
    let done = 0;
    for (;;) {
      const batch = await orm.em.fork().transactional(sweepBatch);
      done += batch.done;
      if (batch.claimed > 0) announce();
      if (batch.claimed < batchSize) return done;
    }
  };
  const task = new PeriodicTask({ intervalMs, run: async () => void (await sweepOnce()), onError });
  return { start: () => task.start(), stop: () => task.stop(), sweepOnce };
};
