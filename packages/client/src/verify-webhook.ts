import { Webhook } from 'standardwebhooks';
import type { components } from './api-schema.generated.ts';

/** The body of a webhook: the same `evt_` event `GET /api/v1/events/{id}` returns. */
export type WebhookEvent = components['schemas']['Event'];

type HeaderBag = Headers | Record<string, string | string[] | undefined>;

const headerOf = (headers: HeaderBag, name: string): string => {
  const value = headers instanceof Headers ? headers.get(name) : headers[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
};

/**
 * Checks a webhook's Standard Webhooks signature against the endpoint's secret (`whsec_…`,
 * either of two during a rotation works: try each) and its timestamp (5 minutes of tolerance),
 * then returns its event. Throws `WebhookVerificationError` when it was not signed by us.
 * `body` must be the raw bytes as received: a re-serialized JSON body no longer verifies.
 */
export const verifyWebhook = (secret: string, body: string | Buffer, headers: HeaderBag): WebhookEvent =>
  new Webhook(secret).verify(body, {
    'webhook-id': headerOf(headers, 'webhook-id'),
    'webhook-timestamp': headerOf(headers, 'webhook-timestamp'),
    'webhook-signature': headerOf(headers, 'webhook-signature'),
  }) as WebhookEvent;
