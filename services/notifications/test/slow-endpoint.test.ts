import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, makeInvoice } from './factories.ts';
import { startNotifications, subscribe, type Notifications } from './harness.ts';
import { startReceiver, type Receiver } from './receiver.ts';

let notifications: Notifications;
let receiver: Receiver;

// Few slots, a long deadline: without a cap per endpoint, the hanging endpoint takes them all.
beforeAll(async () => {
  [notifications, receiver] = await Promise.all([
    startNotifications('notifications_slow_endpoint', { WEBHOOK_CONCURRENCY: '4', WEBHOOK_ENDPOINT_CONCURRENCY: '1', WEBHOOK_TIMEOUT_MS: '5000' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});

describe('an endpoint that hangs', () => {
  it('holds no more than its share of the delivery slots: another endpoint of the workspace gets every event at once', async () => {
    const client = notifications.workspace();
    const hanging = await subscribe(client, receiver, ['invoice.paid']);
    const healthy = await subscribe(client, receiver, ['invoice.paid']);
    receiver.answerWith((webhook) => (webhook.path === hanging.path ? 'hang' : { status: 200 }));

    const started = Date.now();
    for (let i = 0; i < 8; i++) await notifications.publish(makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid, makeInvoice({ status: 'paid' })));
    await receiver.waitFor(() => receiver.at(healthy.path).length >= 8, 4_000, 'all 8 deliveries to the healthy endpoint while the other hangs');

    // Well inside the hanging endpoint's 5 s deadline: its requests never stood in the way.
    expect(Date.now() - started).toBeLessThan(4_000);
    expect(receiver.at(hanging.path).length).toBe(1);
  });
});
