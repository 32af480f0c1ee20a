import { BILLING_SUBJECTS, type WebhookEndpointWithSecret } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, publicEventIdOf } from './factories.ts';
import { startNotifications, type Notifications } from './harness.ts';
import { startReceiver, verifyWebhook, type Receiver } from './receiver.ts';

const EVENTS = 300;

let notifications: Notifications;
let receiver: Receiver;

beforeAll(async () => {
  [notifications, receiver] = await Promise.all([startNotifications('notifications_replicas', { WEBHOOK_CONCURRENCY: '8' }), startReceiver()]);
  await notifications.startReplica();
  await notifications.startReplica();
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});

describe('three replicas on one database', () => {
  it('share the consumers and the deliveries without sending any attempt twice', async () => {
    const client = notifications.workspace();
    const endpoint = await client.data<WebhookEndpointWithSecret>(client.post('/api/v1/webhook_endpoints', { url: receiver.url('/replicas'), enabled_events: ['*'] }));
    const published = Array.from({ length: EVENTS }, () => makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid));
    for (const envelope of published) await notifications.publish(envelope);

    await receiver.waitFor(() => receiver.received.length >= EVENTS, 30_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const ids = receiver.received.map((webhook) => String(webhook.headers['webhook-id']));
    expect(ids).toHaveLength(EVENTS);
    expect(new Set(ids)).toEqual(new Set(published.map(publicEventIdOf)));
    for (const webhook of receiver.received) verifyWebhook(webhook, endpoint.secret);
  });
});
