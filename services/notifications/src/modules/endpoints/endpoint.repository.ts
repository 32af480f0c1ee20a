import type { WebhookDisabledReason, WebhookEventType } from '@invoicing/contracts';
import { newestFirstPage, type KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { NOTIFICATIONS_SCHEMA } from '../../database.ts';
import { EndpointEntity, type EndpointRow } from './endpoint.entity.ts';

const S = NOTIFICATIONS_SCHEMA;

export const endpointRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<EndpointRow | null> => em.findOne(EndpointEntity, { id, workspaceId }),

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<EndpointRow | null> =>
    tx.findOne(EndpointEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  /** `limit + 1` rows, newest first, after `position`; the extra row tells whether a next page exists. */
  pageNewestFirst: (workspaceId: string, position: KeysetPosition | undefined, limit: number): Promise<EndpointRow[]> => {
    const qb = em.createQueryBuilder(EndpointEntity).select('*').where({ workspaceId });
    return newestFirstPage(qb, position, limit).getResultList();
  },

  /** Ids of the workspace's enabled endpoints that receive `type`. */
  enabledReceiving: async (tx: EntityManager, workspaceId: string, type: WebhookEventType): Promise<string[]> => {
    const rows = await tx.execute<{ id: string }[]>(
      `select id from ${S}.webhook_endpoints where workspace_id = ? and status = 'enabled' and enabled_events && array['*', ?]::text[] order by created, id`,
      [workspaceId, type],
    );
    return rows.map((row) => row.id);
  },

  add: (tx: EntityManager, row: EndpointRow): EndpointRow => tx.create(EndpointEntity, row),

  /** Deletes the endpoint; its pending deliveries go with it (the foreign key cascades), its attempts stay. */
  remove: async (tx: EntityManager, id: string): Promise<void> => {
    await tx.nativeDelete(EndpointEntity, { id });
  },

  /** The worker's view of an endpoint's failures: a success clears the run of failures. */
  markSucceeding: async (tx: EntityManager, id: string): Promise<void> => {
    await tx.execute(`update ${S}.webhook_endpoints set failing_since = null where id = ? and failing_since is not null`, [id]);
  },

  /** Starts a run of failures at `at` unless one is running; returns since when it fails and whether it is enabled. */
  markFailing: async (tx: EntityManager, id: string, at: Date): Promise<{ failingSince: Date; enabled: boolean } | undefined> => {
    const [row] = await tx.execute<{ failing_since: Date; status: string }[]>(
      `update ${S}.webhook_endpoints set failing_since = coalesce(failing_since, ?) where id = ? returning failing_since, status`,
      [at, id],
    );
    return row ? { failingSince: new Date(row.failing_since), enabled: row.status === 'enabled' } : undefined;
  },

  /** Disables an enabled endpoint for `reason`; returns false when it was not enabled (or is gone). */
  disable: async (tx: EntityManager, id: string, reason: WebhookDisabledReason, at: Date): Promise<boolean> => {
    const rows = await tx.execute<{ id: string }[]>(
      `update ${S}.webhook_endpoints set status = 'disabled', disabled_reason = ?, disabled_at = ?, updated = ? where id = ? and status = 'enabled' returning id`,
      [reason, at, at, id],
    );
    return rows.length > 0;
  },
});

export type EndpointRepository = ReturnType<typeof endpointRepository>;
