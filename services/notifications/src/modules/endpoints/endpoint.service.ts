import type { CreateWebhookEndpointBody, ListWebhookEndpointsQuery, ReplayWebhookEventsBody, UpdateWebhookEndpointBody } from '@invoicing/contracts';
import { toPublicId } from '@invoicing/contracts';
import { invalidRequest, invalidState, loadByPublicId, newId, timeBound, type CursorCodec } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AddressNotAllowedError, type AddressPolicy } from '../../shared/address-policy.ts';
import type { SecretBox } from '../../shared/secret-box.ts';
import { deliveryRepository } from '../deliveries/delivery.repository.ts';
import { endpointChanges, endpointView, newSigningSecret, PREVIOUS_SECRET_VALID_MS, typesReceived } from './endpoint.domain.ts';
import type { EndpointRow } from './endpoint.entity.ts';
import { endpointRepository } from './endpoint.repository.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

export interface EndpointServiceDeps {
  em: EntityManager;
  policy: AddressPolicy;
  secrets: SecretBox;
  clock: Clock;
  cursors: CursorCodec;
  /** Called after a commit that queued deliveries. */
  announce: () => void;
}

/** Webhook endpoints: CRUD, secret rotation and replay. */
export const endpointService = ({ em, policy, secrets, clock, cursors, announce }: EndpointServiceDeps) => {
  const endpoints = endpointRepository(em);

  const refuseUnreachableUrl = async (url: string): Promise<void> => {
    try {
      await policy.checkDestination(url);
    } catch (error) {
      if (!(error instanceof AddressNotAllowedError)) throw error;
      throw invalidRequest(`The url is not allowed: ${error.message}.`, [{ path: 'url', message: error.message }]);
    }
  };

  const withSecret = (row: EndpointRow, secret: string) => ({ data: { ...endpointView(row), secret } });

  /** Runs `change` on the endpoint under a row lock, so concurrent changes apply one after the other. */
  const changeEndpoint = <T>(workspaceId: string, publicId: string, change: (tx: EntityManager, row: EndpointRow) => Promise<T>) =>
    em.transactional(async (tx) => change(tx, await loadByPublicId('webhookEndpoint', publicId, (id) => endpoints.findForUpdate(tx, workspaceId, id), 'webhook endpoint')));

  return {
    list: async (workspaceId: string, query: ListWebhookEndpointsQuery) => {
      const pages = cursors.forList('webhook_endpoints', workspaceId);
      const rows = await endpoints.pageNewestFirst(workspaceId, { metadata: query.metadata }, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(rows, query.limit, endpointView);
    },

    create: async (workspaceId: string, body: CreateWebhookEndpointBody) => {
      await refuseUnreachableUrl(body.url);
      const id = newId();
      const secret = newSigningSecret();
      const now = clock.now();
      const metadata = mergeMetadata({}, body.metadata);
      const row = await em.transactional(async (tx) =>
        endpoints.add(tx, {
          id,
          workspaceId,
          url: body.url,
          enabledEvents: body.enabled_events,
          description: body.description ?? null,
          status: 'enabled',
          disabledReason: null,
          disabledAt: null,
          failingSince: null,
          secret: secrets.seal(secret, id),
          previousSecret: null,
          previousSecretExpiresAt: null,
          metadata,
          created: now,
          updated: now,
        }),
      );
      return withSecret(row, secret);
    },

    retrieve: async (workspaceId: string, publicId: string) => ({
      data: endpointView(await loadByPublicId('webhookEndpoint', publicId, (id) => endpoints.findInWorkspace(workspaceId, id), 'webhook endpoint')),
    }),

    update: async (workspaceId: string, publicId: string, patch: UpdateWebhookEndpointBody) => {
      if (patch.url !== undefined) await refuseUnreachableUrl(patch.url);
      return changeEndpoint(workspaceId, publicId, async (tx, row) => {
        const wasEnabled = row.status === 'enabled';
        tx.assign(row, endpointChanges(row, patch, clock.now()));
        // A disabled endpoint receives nothing: what was waiting for it is dropped, not held back.
        if (wasEnabled && row.status === 'disabled') await deliveryRepository(tx).cancelPendingOf(tx, row.id);
        return { data: endpointView(row) };
      });
    },

    remove: (workspaceId: string, publicId: string) =>
      changeEndpoint(workspaceId, publicId, async (tx, row) => {
        await endpoints.remove(tx, row.id);
      }),

    rotateSecret: (workspaceId: string, publicId: string) =>
      changeEndpoint(workspaceId, publicId, async (tx, row) => {
        const secret = newSigningSecret();
        const now = clock.now();
        tx.assign(row, {
          previousSecret: row.secret,
          previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_VALID_MS),
          secret: secrets.seal(secret, row.id),
          updated: now,
        });
        return withSecret(row, secret);
      }),

    replay: async (workspaceId: string, publicId: string, body: ReplayWebhookEventsBody) => {
      const since = timeBound(body.since, 'start')!;
      const until = timeBound(body.until, 'end') ?? clock.now();
      if (since > until) throw invalidRequest('since is after until.', [{ path: 'since', message: 'must not be after until' }]);
      const result = await changeEndpoint(workspaceId, publicId, async (tx, row) => {
        if (row.status !== 'enabled') throw invalidState('The webhook endpoint is disabled; enable it before replaying events to it.');
        const types = body.types ?? typesReceived(row.enabledEvents);
        const count = await deliveryRepository(tx).enqueueReplay(tx, row.id, workspaceId, since, until, types);
        return { object: 'webhook_replay' as const, livemode: livemodeOf(workspaceId), endpoint: toPublicId('webhookEndpoint', row.id), since: since.toISOString(), until: until.toISOString(), types, event_count: count };
      });
      if (result.event_count > 0) announce();
      return { data: result };
    },
  };
};

export type EndpointService = ReturnType<typeof endpointService>;
