import { BILLING_SUBJECTS, DOCUMENTS_SUBJECTS, type DeliveryAttempt, type WebhookEvent } from '@invoicing/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, makeInvoice, publicEventIdOf } from './factories.ts';
import { expectProblem, startNotifications, subscribe, type Notifications, type WorkspaceClient } from './harness.ts';
import { startReceiver, verifyWebhook, type Receiver } from './receiver.ts';

let notifications: Notifications;
let receiver: Receiver;

beforeAll(async () => {
  [notifications, receiver] = await Promise.all([
    startNotifications('notifications_delivery', { WEBHOOK_TIMEOUT_MS: '1000', WEBHOOK_DISABLE_AFTER_FAILING_S: '3' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});
afterEach(() => receiver.answerWith(() => ({ status: 200 })));


const attemptsOf = async (client: WorkspaceClient, eventId: string) =>
  (await client.get(`/api/v1/events/${eventId}/deliveries`)).json<{ data: DeliveryAttempt[] }>().data;


describe('signed delivery', () => {
  it('delivers invoice.paid and invoice.voided signed per Standard Webhooks, with the invoice in data.object', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver, ['invoice.paid', 'invoice.voided']);
    const paidInvoice = makeInvoice({ status: 'paid', amount_due: 0, amount_paid: 11_900, paid_at: '2026-11-24T11:00:00.000Z' });
    const voidedInvoice = makeInvoice({ status: 'void', amount_due: 0, voided_at: '2026-11-24T11:00:00.000Z', void_reason: 'duplicate' });
    const paid = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid, paidInvoice);
    const voided = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoiceVoided, voidedInvoice);
    await notifications.publish(paid);
    await notifications.publish(voided);

    await receiver.waitFor(() => receiver.at(path).length >= 2);
    const payloads = receiver.at(path).map((webhook) => verifyWebhook(webhook, endpoint.secret) as WebhookEvent);
    expect(payloads.map((event) => event.type).sort()).toEqual(['invoice.paid', 'invoice.voided']);
    const paidEvent = payloads.find((event) => event.type === 'invoice.paid')!;
    expect(paidEvent).toEqual({ id: publicEventIdOf(paid), object: 'event', livemode: true, type: 'invoice.paid', created: paid.occurred_at, data: { object: paidInvoice } });
    expect(payloads.find((event) => event.type === 'invoice.voided')!.data.object).toEqual(voidedInvoice);
    for (const webhook of receiver.at(path)) {
      expect(webhook.headers['content-type']).toBe('application/json');
      expect(webhook.headers['webhook-id']).toBe(JSON.parse(webhook.body).id);
      expect(Math.abs(Number(webhook.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(() => verifyWebhook(webhook, 'whsec_aGVsbG8gd29ybGQgaGVsbG8gd29ybGQ=')).toThrow('No matching signature found');
    }

    // The event log holds the same event, and its delivery attempt.
    expect(await client.data(client.get(`/api/v1/events/${publicEventIdOf(paid)}`))).toEqual(paidEvent);
    await expect.poll(() => attemptsOf(client, paidEvent.id)).toEqual([
      {
        id: expect.stringMatching(/^att_[0-9a-f]{32}$/),
        object: 'delivery_attempt',
        livemode: true,
        event: paidEvent.id,
        endpoint: endpoint.id,
        url: receiver.url(path),
        trigger: 'event',
        attempt: 1,
        attempted_at: expect.any(String),
        succeeded: true,
        status_code: 200,
        latency_ms: expect.any(Number),
        response_body: null,
        error: null,
        next_attempt_at: null,
      },
    ]);
  });

  it('sends only the types an endpoint subscribed to, and nothing to a disabled endpoint', async () => {
    const { client, path } = await subscribe(notifications.workspace(), receiver, ['invoice.paid']);
    const disabled = await subscribe(client, receiver);
    await client.data(client.patch(`/api/v1/webhook_endpoints/${disabled.endpoint.id}`, { status: 'disabled' }));
    await notifications.publish(makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoiceFinalized));
    const paid = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid);
    await notifications.publish(paid);

    await receiver.waitFor(() => receiver.at(path).length >= 1);
    await expect.poll(() => client.data<WebhookEvent[]>(client.get('/api/v1/events')).then((events) => events.length)).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at(path).map((webhook) => webhook.headers['webhook-id'])).toEqual([publicEventIdOf(paid)]);
    expect(receiver.at(disabled.path)).toEqual([]);
  });

  it('maps documents.invoice.viewed to invoice.viewed', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver, ['invoice.viewed']);
    await notifications.publish(makeEnvelope(client.workspaceId, DOCUMENTS_SUBJECTS.invoiceViewed));
    await receiver.waitFor(() => receiver.at(path).length >= 1);
    expect((verifyWebhook(receiver.at(path)[0]!, endpoint.secret) as WebhookEvent).type).toBe('invoice.viewed');
  });
});

describe('workspaces', () => {
  it("never sends workspace A's events to workspace B's endpoints, nor shows them in B's event log", async () => {
    const a = await subscribe(notifications.workspace(), receiver, ['*']);
    const b = await subscribe(notifications.workspace(), receiver, ['*']);
    const envelope = makeEnvelope(a.client.workspaceId, BILLING_SUBJECTS.invoicePaid);
    await notifications.publish(envelope);

    await receiver.waitFor(() => receiver.at(a.path).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(receiver.at(b.path)).toEqual([]);
    expect(await b.client.data(b.client.get('/api/v1/events'))).toEqual([]);
    expectProblem(await b.client.get(`/api/v1/events/${publicEventIdOf(envelope)}`), 404, 'not_found');
    expectProblem(await b.client.get(`/api/v1/events/${publicEventIdOf(envelope)}/deliveries`), 404, 'not_found');
    expectProblem(await b.client.post(`/api/v1/events/${publicEventIdOf(envelope)}/redeliver`), 404, 'not_found');
  });
});
