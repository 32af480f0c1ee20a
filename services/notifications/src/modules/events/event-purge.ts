import type { Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { eventRepository } from './event.repository.ts';

export interface EventPurgeOptions {
  orm: Orm;
  clock: Clock;
  retentionDays: number;
  batchSize?: number;
}

/**
 * Deletes events past their retention, with their deliveries and attempts, in small batches so no
 * transaction holds many rows; returns how many went. Replicas purging at once only share the work.
 */
export const expiredEventsPurge =
  ({ orm, clock, retentionDays, batchSize = 1_000 }: EventPurgeOptions) =>
  async (): Promise<number> => {
    const before = new Date(clock.now().getTime() - retentionDays * 86_400_000);
    let purged = 0;
    for (;;) {
      const batch = await eventRepository(orm.em.fork()).purgeOlderThan(before, batchSize);
      purged += batch;
      if (batch < batchSize) return purged;
    }
  };
