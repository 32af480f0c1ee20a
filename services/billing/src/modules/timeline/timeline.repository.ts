import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { TimelineEntryEntity, type TimelineEntryRow } from './timeline.entity.ts';

export const timelineRepository = (em: EntityManager) => ({
  add: (tx: EntityManager, entry: TimelineEntryRow): void => {
    tx.create(TimelineEntryEntity, entry);
  },

  /** `limit + 1` entries of one invoice, oldest first, after `position`. */
  pageOldestFirst: (invoiceId: string, position: KeysetPosition | undefined, limit: number): Promise<TimelineEntryRow[]> => {
    const qb = em.createQueryBuilder(TimelineEntryEntity).select('*').where({ invoiceId });
    if (position) qb.andWhere('(occurred_at, id) > (?, ?)', [position.created, position.id]);
    return qb.orderBy({ occurredAt: 'asc', id: 'asc' }).limit(limit + 1).getResultList();
  },
});
