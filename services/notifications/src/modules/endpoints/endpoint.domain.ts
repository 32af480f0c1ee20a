import { randomBytes } from 'node:crypto';
import {
  ALL_EVENTS,
  toPublicId,
  WEBHOOK_EVENT_TYPES,
  type UpdateWebhookEndpointBody,
  type WebhookDisabledReason,
  type WebhookEndpoint,
  type WebhookEventType,
} from '@invoicing/contracts';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import type { EndpointRow } from './endpoint.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** After a rotation the old secret keeps signing for this long, so receivers can switch at leisure. */
export const PREVIOUS_SECRET_VALID_MS = 24 * 3600_000;

const SECRET_BYTES = 32;

/** A Standard Webhooks signing secret: `whsec_` + base64 of random bytes. */
export const newSigningSecret = (): string => `whsec_${randomBytes(SECRET_BYTES).toString('base64')}`;

export const endpointView = (row: EndpointRow): WebhookEndpoint => ({
  id: toPublicId('webhookEndpoint', row.id),
  object: 'webhook_endpoint',
  livemode: livemodeOf(row.workspaceId),
  url: row.url,
  enabled_events: row.enabledEvents,
  description: row.description ?? null,
  status: row.status,
  disabled_reason: row.disabledReason ?? null,
  disabled_at: row.disabledAt?.toISOString() ?? null,
  failing_since: row.failingSince?.toISOString() ?? null,
  previous_secret_expires_at: row.previousSecretExpiresAt?.toISOString() ?? null,
  metadata: row.metadata,
  created: row.created.toISOString(),
  updated: row.updated.toISOString(),
});

/** The concrete types an `enabled_events` list stands for. */
export const typesReceived = (enabledEvents: readonly string[]): WebhookEventType[] =>
  enabledEvents.includes(ALL_EVENTS) ? [...WEBHOOK_EVENT_TYPES] : WEBHOOK_EVENT_TYPES.filter((type) => enabledEvents.includes(type));

/** The fields that disable an endpoint, for the reason given. */
export const disabledFields = (reason: WebhookDisabledReason, at: Date) => ({
  status: 'disabled' as const,
  disabledReason: reason,
  disabledAt: at,
  updated: at,
});

/** The changes a PATCH makes. Re-enabling forgets why it was disabled and how long it had been failing. */
export const endpointChanges = (row: EndpointRow, patch: UpdateWebhookEndpointBody, now: Date): Partial<EndpointRow> => {
  const changes: Partial<EndpointRow> = { updated: now };
  if (patch.url !== undefined) changes.url = patch.url;
  if (patch.enabled_events !== undefined) changes.enabledEvents = patch.enabled_events;
  if (patch.description !== undefined) changes.description = patch.description;
  if (patch.metadata !== undefined) changes.metadata = mergeMetadata(row.metadata, patch.metadata);
  if (patch.status === 'disabled' && row.status === 'enabled') Object.assign(changes, disabledFields('requested', now));
  if (patch.status === 'enabled' && row.status === 'disabled') {
    Object.assign(changes, { status: 'enabled', disabledReason: null, disabledAt: null, failingSince: null });
  }
  return changes;
};

/** The secrets that sign a delivery made at `now`: the current one, and the previous one until it expires. */
export const signingSecrets = (current: string, previous: string | null, previousExpiresAt: Date | null, now: Date): string[] =>
  previous !== null && previousExpiresAt !== null && previousExpiresAt > now ? [current, previous] : [current];
