import type { WebhookEvent, WebhookEventType } from '@invoicing/contracts';
import { entityColumns, newestFirstPage, nowPlus, sqlOf, type KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { NotificationsDatabase } from '../../database.ts';
import { DeliveryAttemptEntity, type DeliveryAttemptRow } from '../deliveries/delivery-attempt.entity.ts';
import { receivingEvents } from '../endpoints/endpoint.repository.ts';
import { EventEntity, type EventRow } from './event.entity.ts';

export interface EventFilter {
  type?: WebhookEventType | undefined;
  createdFrom?: Date | undefined;
  createdUntil?: Date | undefined;
}

export interface IncomingEvent {
  id: string;
  workspaceId: string;
  correlationId: string;
  type: WebhookEventType;
  created: Date;
  data: WebhookEvent['data'];
}

export const eventRepository = (em: EntityManager) => ({
  /**
   * Stores an event and queues one delivery per enabled endpoint of its workspace that receives
   * its type, in one statement (so one transaction). An event already stored (the bus delivered it
   * again) changes nothing. Returns how many deliveries were queued.
   */
  recordWithDeliveries: async (event: IncomingEvent, firstAttemptInS: number): Promise<{ stored: boolean; deliveries: number }> => {
    const row = await sqlOf<NotificationsDatabase>(em)
      .with('stored', (db) =>
        db
          .insertInto('events')
          .values(entityColumns(em, EventEntity, event))
          .onConflict((oc) => oc.column('id').doNothing())
          .returning('id'),
      )
      .with('queued', (db) =>
        db
          .insertInto('deliveries')
          .columns(['event_id', 'endpoint_id', 'trigger', 'next_attempt_at'])
          .expression((eb) =>
            eb
              .selectFrom(['stored', 'webhook_endpoints as w'])
              .select(['stored.id', 'w.id', sql.lit('event').as('trigger'), nowPlus(firstAttemptInS, 'second').as('next_attempt_at')])
              .where('w.workspace_id', '=', event.workspaceId)
              .where('w.status', '=', sql.lit('enabled'))
              .where('w.enabled_events', '&&', receivingEvents(event.type))
              // An endpoint deleted while this runs is waited for and then left out, instead of
              // failing the foreign key on a row this statement's snapshot still showed.
              .forKeyShare('w'),
          )
          // The predicate of the partial unique index that arbitrates, written as a literal as the index writes it.
          .onConflict((oc) => oc.columns(['event_id', 'endpoint_id']).where('trigger', '=', sql.lit('event')).doNothing())
          .returning(sql.lit(1).as('queued')),
      )
      .selectNoFrom((eb) => [
        eb.cast<number>(eb.selectFrom('stored').select(eb.fn.countAll().as('count')), 'integer').as('stored'),
        eb.cast<number>(eb.selectFrom('queued').select(eb.fn.countAll().as('count')), 'integer').as('deliveries'),
      ])
      .executeTakeFirstOrThrow();
    return { stored: row.stored > 0, deliveries: row.deliveries };
  },

  findInWorkspace: (workspaceId: string, id: string): Promise<EventRow | null> => em.findOne(EventEntity, { id, workspaceId }),

  /** `limit + 1` rows, newest first, after `position`. */
  pageNewestFirst: (workspaceId: string, filter: EventFilter, position: KeysetPosition | undefined, limit: number): Promise<EventRow[]> => {
    const qb = em.createQueryBuilder(EventEntity).select('*').where({ workspaceId });
    if (filter.type !== undefined) qb.andWhere({ type: filter.type });
    if (filter.createdFrom) qb.andWhere({ created: { $gte: filter.createdFrom } });
    if (filter.createdUntil) qb.andWhere({ created: { $lte: filter.createdUntil } });
    return newestFirstPage(qb, position, limit).getResultList();
  },

  /** `limit + 1` attempts of one event, newest first, after `position`. */
  attemptsNewestFirst: (eventId: string, position: KeysetPosition | undefined, limit: number): Promise<DeliveryAttemptRow[]> => {
    const qb = em.createQueryBuilder(DeliveryAttemptEntity).select('*').where({ eventId });
    return newestFirstPage(qb, position, limit, 'attemptedAt').getResultList();
  },

  /** Deletes up to `batchSize` events created before `before`, their deliveries and attempts with them; returns how many. */
  purgeOlderThan: async (before: Date, batchSize: number): Promise<number> => {
    const row = await sqlOf<NotificationsDatabase>(em)
      .with('purged', (db) =>
        db
          .deleteFrom('events')
          .where('id', 'in', (eb) => eb.selectFrom('events').select('id').where('created', '<', before).orderBy('created').limit(batchSize))
          .returning(sql.lit(1).as('purged')),
      )
      .selectFrom('purged')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .executeTakeFirstOrThrow();
    return row.count;
  },
});

export type EventRepository = ReturnType<typeof eventRepository>;
