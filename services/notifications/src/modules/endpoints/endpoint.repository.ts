import type { Metadata, WebhookDisabledReason, WebhookEventType } from '@invoicing/contracts';
import { newestFirstPage, sqlOf, whereMetadataHolds, type KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { NotificationsDatabase } from '../../database.ts';
import { EndpointEntity, type EndpointRow } from './endpoint.entity.ts';

// Values the code fixes (`'enabled'`, `null`) are literals, as the SQL would spell them; only a
// method's arguments are parameters.
const sqlIn = (em: EntityManager) => sqlOf<NotificationsDatabase>(em);

/** The endpoints that receive `type`: those subscribed to it or to every type (`*`). */
export const receivingEvents = (type: WebhookEventType) => sql<string[]>`array['*', ${type}]::text[]`;

export const endpointRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<EndpointRow | null> => em.findOne(EndpointEntity, { id, workspaceId }),

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<EndpointRow | null> =>
    tx.findOne(EndpointEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  /** `limit + 1` rows, newest first, after `position`; the extra row tells whether a next page exists. */
  pageNewestFirst: (workspaceId: string, filter: { metadata?: Metadata | undefined }, position: KeysetPosition | undefined, limit: number): Promise<EndpointRow[]> => {
    const qb = em.createQueryBuilder(EndpointEntity).select('*').where({ workspaceId });
    whereMetadataHolds(qb, filter.metadata);
    return newestFirstPage(qb, position, limit).getResultList();
  },

  /** Ids of the workspace's enabled endpoints that receive `type`. */
  enabledReceiving: async (tx: EntityManager, workspaceId: string, type: WebhookEventType): Promise<string[]> => {
    const rows = await sqlIn(tx)
      .selectFrom('webhook_endpoints')
      .select('id')
      .where('workspace_id', '=', workspaceId)
      .where('status', '=', sql.lit('enabled'))
      .where('enabled_events', '&&', receivingEvents(type))
      .orderBy('created')
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  },

  add: (tx: EntityManager, row: EndpointRow): EndpointRow => tx.create(EndpointEntity, row),

  /** Deletes the endpoint; its pending deliveries go with it (the foreign key cascades), its attempts stay. */
  remove: async (tx: EntityManager, id: string): Promise<void> => {
    await tx.nativeDelete(EndpointEntity, { id });
  },

  /** The worker's view of an endpoint's failures: a success clears the run of failures. */
  markSucceeding: async (tx: EntityManager, id: string): Promise<void> => {
    await sqlIn(tx).updateTable('webhook_endpoints').set({ failing_since: sql.lit(null) }).where('id', '=', id).where('failing_since', 'is not', null).execute();
  },

  /** Starts a run of failures at `at` unless one is running; returns since when it fails and whether it is enabled. */
  markFailing: async (tx: EntityManager, id: string, at: Date): Promise<{ failingSince: Date; enabled: boolean } | undefined> => {
    const row = await sqlIn(tx)
      .updateTable('webhook_endpoints')
      .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(at)) }))
      .where('id', '=', id)
      .returning(['failing_since', 'status'])
      .executeTakeFirst();
    // Set by this very statement; a timestamp comes back as PostgreSQL's text.
    return row ? { failingSince: new Date(row.failing_since!), enabled: row.status === 'enabled' } : undefined;
  },

  /** Disables an enabled endpoint for `reason`; returns false when it was not enabled (or is gone). */
  disable: async (tx: EntityManager, id: string, reason: WebhookDisabledReason, at: Date): Promise<boolean> => {
    const rows = await sqlIn(tx)
      .updateTable('webhook_endpoints')
      .set({ status: sql.lit('disabled'), disabled_reason: reason, disabled_at: at, updated: at })
      .where('id', '=', id)
      .where('status', '=', sql.lit('enabled'))
      .returning('id')
      .execute();
    return rows.length > 0;
  },
});

export type EndpointRepository = ReturnType<typeof endpointRepository>;
