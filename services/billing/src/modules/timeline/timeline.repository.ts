import type { KeysetPosition } from '@invoicing/service-kit';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { TimelineEntryEntity, type TimelineEntryRow } from './timeline.entity.ts';

export const timelineRepository = (em: EntityManager) => ({
  add: (tx: EntityManager, entry: TimelineEntryRow): void => {
    tx.create(TimelineEntryEntity, entry);
  },

  /**
   * `limit + 1` entries of one invoice, oldest first, after `position`: a row comparison, which
   * PostgreSQL turns into a bound on the index invoice_timeline_oldest_first.
   */
  pageOldestFirst: (invoiceId: string, position: KeysetPosition | undefined, limit: number): Promise<TimelineEntryRow[]> =>
    em.find(
      TimelineEntryEntity,
      // A tuple of properties: the ORM writes their columns as a row comparison.
      position ? ({ invoiceId, [raw(['occurredAt', 'id'])]: { $gt: [position.created, position.id] } } as never) : { invoiceId },
      { orderBy: { occurredAt: 'asc', id: 'asc' }, limit: limit + 1 },
    ),
});
