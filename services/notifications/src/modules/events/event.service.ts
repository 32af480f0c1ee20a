import { toPublicId, type ListEventsQuery, type PageQuery, type RedeliverEventBody, type WebhookEventType } from '@invoicing/contracts';
import { invalidState, loadByPublicId, notFound, timeBound, type CursorCodec } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { z } from 'zod';
import { deliveryRepository } from '../deliveries/delivery.repository.ts';
import { endpointRepository } from '../endpoints/endpoint.repository.ts';
import { attemptView, eventView } from './event.domain.ts';
import { eventRepository } from './event.repository.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

export interface EventServiceDeps {
  em: EntityManager;
  cursors: CursorCodec;
  /** Called after a commit that queued deliveries. */
  announce: () => void;
}

/** The endpoint named, which must be enabled, or else every enabled endpoint that receives the type. */
const recipientsOf = async (tx: EntityManager, workspaceId: string, type: WebhookEventType, named: string | undefined): Promise<string[]> => {
  const endpoints = endpointRepository(tx);
  if (named === undefined) return endpoints.enabledReceiving(tx, workspaceId, type);
  const endpoint = await endpoints.findInWorkspace(workspaceId, named);
  if (!endpoint) throw notFound('webhook endpoint', toPublicId('webhookEndpoint', named));
  if (endpoint.status !== 'enabled') throw invalidState('The webhook endpoint is disabled; enable it first.');
  return [endpoint.id];
};

/** The event log: list, retrieve, the attempts of an event, and sending it again. */
export const eventService = ({ em, cursors, announce }: EventServiceDeps) => {
  const events = eventRepository(em);
  const findEvent = (workspaceId: string, publicId: string) => loadByPublicId('event', publicId, (id) => events.findInWorkspace(workspaceId, id));

  return {
    list: async (workspaceId: string, query: ListEventsQuery) => {
      const filter = { type: query.type, createdFrom: timeBound(query['created[gte]'], 'start'), createdUntil: timeBound(query['created[lte]'], 'end') };
      const pages = cursors.forList('events', workspaceId);
      const rows = await events.pageNewestFirst(workspaceId, filter, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(rows, query.limit, eventView);
    },

    retrieve: async (workspaceId: string, publicId: string) => ({ data: eventView(await findEvent(workspaceId, publicId)) }),

    deliveries: async (workspaceId: string, publicId: string, query: z.output<typeof PageQuery>) => {
      const event = await findEvent(workspaceId, publicId);
      // Bound to this event too: another event's attempts are another list.
      const pages = cursors.forList(`events/${event.id}/deliveries`, workspaceId);
      const rows = await events.attemptsNewestFirst(event.id, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(
        rows.map((row) => ({ row, created: row.attemptedAt, id: row.id })),
        query.limit,
        ({ row }) => attemptView(row, workspaceId),
      );
    },

    redeliver: async (workspaceId: string, publicId: string, body: RedeliverEventBody) => {
      const event = await findEvent(workspaceId, publicId);
      const enqueue = () =>
        em.transactional(async (tx) => {
          const ids = await recipientsOf(tx, workspaceId, event.type, body.endpoint);
          await deliveryRepository(tx).enqueueEvent(tx, event.id, ids, 'redeliver');
          return ids;
        });
      // An endpoint deleted between the read and the insert (a foreign key violation): read the
      // recipients again, which no longer include it (one named in `endpoint` is then a 404).
      const endpointIds = await enqueue().catch((error: unknown) => {
        if ((error as { code?: string }).code === '23503') return enqueue();
        throw error;
      });
      if (endpointIds.length > 0) announce();
      return {
        data: {
          object: 'event_redelivery' as const,
          livemode: livemodeOf(workspaceId),
          event: toPublicId('event', event.id),
          endpoints: endpointIds.map((id) => toPublicId('webhookEndpoint', id)),
        },
      };
    },
  };
};

export type EventService = ReturnType<typeof eventService>;
