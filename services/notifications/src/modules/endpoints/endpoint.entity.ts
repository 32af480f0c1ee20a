import type { Metadata, WebhookDisabledReason, WebhookEndpointStatus } from '@invoicing/contracts';
import { WEBHOOK_DISABLED_REASONS, WEBHOOK_ENDPOINT_STATUSES } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const EndpointEntity = defineEntity({
  name: 'WebhookEndpoint',
  tableName: 'webhook_endpoints',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    url: p.text(),
    enabledEvents: p.array<string>().columnType('text[]'),
    description: p.text().nullable(),
    status: p.enum<readonly WebhookEndpointStatus[]>(WEBHOOK_ENDPOINT_STATUSES),
    disabledReason: p.enum<readonly WebhookDisabledReason[]>(WEBHOOK_DISABLED_REASONS).nullable(),
    disabledAt: p.datetime(3).nullable(),
    failingSince: p.datetime(3).nullable(),
    /** Sealed with the secret box, bound to `id`. */
    secret: p.text(),
    previousSecret: p.text().nullable(),
    previousSecretExpiresAt: p.datetime(3).nullable(),
    metadata: p.json<Metadata>(),
    created: p.datetime(3),
    updated: p.datetime(3),
  },
});
export type EndpointRow = InferEntity<typeof EndpointEntity>;
