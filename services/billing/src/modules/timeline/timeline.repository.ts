import type { KeysetPosition } from '@invoicing/service-kit';
import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingDatabase } from '../../database.ts';
import { TimelineEntryEntity, type TimelineEntryRow } from './timeline.entity.ts';

export const timelineRepository = (em: EntityManager) => ({
  add: (tx: EntityManager, entry: TimelineEntryRow): void => {
    tx.create(TimelineEntryEntity, entry);
  },

  /**
   * `limit + 1` entries of one invoice, oldest first, after `position`: a row comparison, which
   * PostgreSQL turns into a bound on the index invoice_timeline_oldest_first.
   */
  pageOldestFirst: (invoiceId: string, position: KeysetPosition | undefined, limit: number): Promise<TimelineEntryRow[]> => {
    let query = sqlOf<BillingDatabase>(em).selectFrom('TimelineEntry').selectAll().where('invoiceId', '=', invoiceId);
    if (position) query = query.where((eb) => eb(eb.refTuple('occurredAt', 'id'), '>', eb.tuple(position.created, position.id)));
    return query.orderBy('occurredAt').orderBy('id').limit(limit + 1).execute();
  },
});
