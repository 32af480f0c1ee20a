import type { InvoiceEventData, WebhookEventType } from '@invoicing/contracts';
import { newestFirstPage, type KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { NOTIFICATIONS_SCHEMA } from '../../database.ts';
import { DeliveryAttemptEntity, type DeliveryAttemptRow } from '../deliveries/delivery-attempt.entity.ts';
import { EventEntity, type EventRow } from './event.entity.ts';

const S = NOTIFICATIONS_SCHEMA;

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
  data: InvoiceEventData;
}

export const eventRepository = (em: EntityManager) => ({
  /**
   * Stores an event and queues one delivery per enabled endpoint of its workspace that receives
   * its type, in one statement (so one transaction). An event already stored (the bus delivered it
   * again) changes nothing. Returns how many deliveries were queued.
   */
  recordWithDeliveries: async (event: IncomingEvent, firstAttemptInS: number): Promise<{ stored: boolean; deliveries: number }> => {
    const [row] = await em.execute<{ stored: number; deliveries: number }[]>(
      `with stored as (
         insert into ${S}.events (id, workspace_id, correlation_id, type, created, data) values (?, ?, ?, ?, ?, ?)
         on conflict (id) do nothing
         returning id
       ), queued as (
         insert into ${S}.deliveries (event_id, endpoint_id, trigger, next_attempt_at)
         select stored.id, w.id, 'event', now() + ? * interval '1 second'
           from stored, ${S}.webhook_endpoints w
          where w.workspace_id = ? and w.status = 'enabled' and w.enabled_events && array['*', ?]::text[]
          -- An endpoint deleted while this runs is waited for and then left out, instead of
          -- failing the foreign key on a row this statement's snapshot still showed.
            for key share of w
         on conflict (event_id, endpoint_id) where trigger = 'event' do nothing
         returning 1
       )
       select (select count(*) from stored)::int as stored, (select count(*) from queued)::int as deliveries`,
      [event.id, event.workspaceId, event.correlationId, event.type, event.created, JSON.stringify(event.data), firstAttemptInS, event.workspaceId, event.type],
    );
    return { stored: (row?.stored ?? 0) > 0, deliveries: row?.deliveries ?? 0 };
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
    if (position) qb.andWhere('(attempted_at, id) < (?, ?)', [position.created, position.id]);
    return qb.orderBy({ attemptedAt: 'desc', id: 'desc' }).limit(limit + 1).getResultList();
  },

  /** Deletes up to `batchSize` events created before `before`, their deliveries and attempts with them; returns how many. */
  purgeOlderThan: async (before: Date, batchSize: number): Promise<number> => {
    const [row] = await em.execute<{ count: number }[]>(
      `with purged as (
         delete from ${S}.events where id in (select id from ${S}.events where created < ? order by created limit ?)
         returning 1
       )
       select count(*)::int as count from purged`,
      [before, batchSize],
    );
    return row?.count ?? 0;
  },
});

export type EventRepository = ReturnType<typeof eventRepository>;
