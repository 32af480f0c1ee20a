import { BILLING_SUBJECTS, type DeliveryAttempt, type WebhookEvent } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordEvent } from '../src/modules/events/record-event.ts';
import { makeEnvelope, publicEventIdOf } from './factories.ts';
import { expectProblem, startNotifications, subscribe, type Notifications, type WorkspaceClient } from './harness.ts';
import { startReceiver, verifyWebhook, type Receiver } from './receiver.ts';

let notifications: Notifications;
let receiver: Receiver;

beforeAll(async () => {
  [notifications, receiver] = await Promise.all([startNotifications('notifications_event_log'), startReceiver()]);
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});


const DAY_MS = 86_400_000;
const daysAgo = (days: number) => new Date(Date.now() - days * DAY_MS).toISOString();

/** Publishes events of these types at these times and waits until the log holds them all; returns their public ids. */
const publishAll = async (client: WorkspaceClient, events: [string, string][]): Promise<string[]> => {
  const envelopes = events.map(([subject, occurredAt]) => makeEnvelope(client.workspaceId, subject, undefined, { occurred_at: occurredAt }));
  for (const envelope of envelopes) await notifications.publish(envelope);
  const ids = envelopes.map(publicEventIdOf);
  await expect.poll(async () => (await client.data<WebhookEvent[]>(client.get('/api/v1/events?limit=100'))).length).toBeGreaterThanOrEqual(ids.length);
  return ids;
};

const attemptsOf = async (client: WorkspaceClient, eventId: string) =>
  (await client.get(`/api/v1/events/${eventId}/deliveries`)).json<{ data: DeliveryAttempt[] }>().data;

const idsOf = async (client: WorkspaceClient, query: string) =>
  (await client.data<WebhookEvent[]>(client.get(`/api/v1/events${query}`))).map((event) => event.id);

describe('the event log', () => {
  it('lists newest first, filters by type and time, and pages with cursors', async () => {
    const client = notifications.workspace();
    const [created, finalized, paid, voided] = await publishAll(client, [
      [BILLING_SUBJECTS.invoiceCreated, daysAgo(10)],
      [BILLING_SUBJECTS.invoiceFinalized, daysAgo(5)],
      [BILLING_SUBJECTS.invoicePaid, daysAgo(2)],
      [BILLING_SUBJECTS.invoiceVoided, daysAgo(1)],
    ]);

    expect(await idsOf(client, '')).toEqual([voided, paid, finalized, created]);
    expect(await idsOf(client, '?type=invoice.paid')).toEqual([paid]);
    expect(await idsOf(client, `?created[gte]=${encodeURIComponent(daysAgo(6))}&created[lte]=${encodeURIComponent(daysAgo(1.5))}`)).toEqual([paid, finalized]);
    expect(await idsOf(client, `?created[lte]=${daysAgo(3).slice(0, 10)}`)).toEqual([finalized, created]);

    const first = (await client.get('/api/v1/events?limit=3')).json<{ data: WebhookEvent[]; next_cursor: string }>();
    expect(first.data.map((event) => event.id)).toEqual([voided, paid, finalized]);
    const second = (await client.get(`/api/v1/events?limit=3&cursor=${first.next_cursor}`)).json<{ data: WebhookEvent[]; next_cursor: null }>();
    expect(second).toEqual({ data: [expect.objectContaining({ id: created })], next_cursor: null });

    expectProblem(await client.get('/api/v1/events?type=invoice.exploded'), 400, 'invalid_request', ['type']);
    expectProblem(await client.get('/api/v1/events?created[gte]=yesterday'), 400, 'invalid_request');
    expectProblem(await client.get('/api/v1/events/evt_0190f3e2c1b27a8e9d1f3c4b5a697887'), 404, 'not_found');
  });

  it('stores an event and queues its deliveries once however often the bus redelivers it, even concurrently', async () => {
    const client = notifications.workspace();
    const { path } = await subscribe(client, receiver);
    const envelope = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid);
    const record = recordEvent({ em: notifications.service.orm.em, firstAttemptInS: 0, announce: () => notifications.service.worker.nudge(), onRejected: () => {} });

    await Promise.all(Array.from({ length: 5 }, () => record(envelope)));
    await record(envelope);

    await receiver.waitFor(() => receiver.at(path).length >= 1);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(receiver.at(path)).toHaveLength(1);
    expect(await idsOf(client, '')).toEqual([publicEventIdOf(envelope)]);
  });

  it('records an event whose endpoint is deleted meanwhile, queueing no delivery for it (found by the contract fuzzer)', async () => {
    const client = notifications.workspace();
    const { endpoint } = await subscribe(client, receiver);
    const record = recordEvent({ em: notifications.service.orm.em, firstAttemptInS: 0, announce: () => {}, onRejected: () => {} });
    const envelope = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid);
    const deleting = notifications.service.orm.em.fork();
    await deleting.begin();
    await deleting.execute('delete from notifications.webhook_endpoints where workspace_id = ?', [client.workspaceId]);
    // The event is recorded while the delete holds the endpoint's row, and the delete commits first.
    const recorded = record(envelope);
    await new Promise((resolve) => setTimeout(resolve, 300));
    await deleting.commit();

    await expect(recorded).resolves.toBeUndefined();
    expect(await idsOf(client, '')).toEqual([publicEventIdOf(envelope)]);
    expect((await client.get(`/api/v1/webhook_endpoints/${endpoint.id}`)).statusCode).toBe(404);
  });

  it('drops events it cannot carry, and ignores subjects that are no webhook type', async () => {
    const client = notifications.workspace();
    const rejected: string[] = [];
    const record = recordEvent({ em: notifications.service.orm.em, firstAttemptInS: 0, announce: () => {}, onRejected: (subject) => rejected.push(subject) });
    await record(makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid, undefined, { data: { object: { id: 'in_1' } } }));
    await record(makeEnvelope(client.workspaceId, 'billing.account.updated'));
    await record({ not: 'an envelope' });
    expect(rejected).toEqual([BILLING_SUBJECTS.invoicePaid, '(unknown)']);
    expect(await idsOf(client, '')).toEqual([]);
  });

  it('deletes events past the 90 days they are kept, with their attempts', async () => {
    const client = notifications.workspace();
    const [old, recent] = await publishAll(client, [
      [BILLING_SUBJECTS.invoiceCreated, daysAgo(91)],
      [BILLING_SUBJECTS.invoiceUpdated, daysAgo(89)],
    ]);
    await notifications.service.purgeExpiredEvents();
    expect(await idsOf(client, '')).toEqual([recent]);
    expectProblem(await client.get(`/api/v1/events/${old}`), 404, 'not_found');
  });
});

describe('sending again', () => {
  it('replays the events between since and until of the chosen types to one endpoint', async () => {
    const client = notifications.workspace();
    const [, finalized, paid] = await publishAll(client, [
      [BILLING_SUBJECTS.invoiceCreated, daysAgo(10)],
      [BILLING_SUBJECTS.invoiceFinalized, daysAgo(5)],
      [BILLING_SUBJECTS.invoicePaid, daysAgo(2)],
      [BILLING_SUBJECTS.invoicePaid, daysAgo(0.01)],
    ]);
    // Subscribed after the events: only a replay brings them.
    const { endpoint, path } = await subscribe(client, receiver, ['invoice.finalized', 'invoice.paid']);
    const other = await subscribe(client, receiver);

    const reply = await client.post(`/api/v1/webhook_endpoints/${endpoint.id}/replay`, { since: daysAgo(7).slice(0, 10), until: daysAgo(1) });
    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.json<{ data: unknown }>().data).toEqual({
      object: 'webhook_replay',
      livemode: true,
      endpoint: endpoint.id,
      since: `${daysAgo(7).slice(0, 10)}T00:00:00.000Z`,
      until: expect.any(String),
      types: ['invoice.finalized', 'invoice.paid'],
      event_count: 2,
    });
    await receiver.waitFor(() => receiver.at(path).length >= 2);
    const replayed = receiver.at(path).map((webhook) => verifyWebhook(webhook, endpoint.secret) as WebhookEvent);
    expect(replayed.map((event) => event.id).sort()).toEqual([finalized, paid].sort());
    await expect.poll(() => attemptsOf(client, paid!)).toMatchObject([{ trigger: 'replay', endpoint: endpoint.id, succeeded: true }]);

    const onlyPaid = await client.data(client.post(`/api/v1/webhook_endpoints/${endpoint.id}/replay`, { since: daysAgo(30), types: ['invoice.paid'] }));
    expect(onlyPaid).toMatchObject({ types: ['invoice.paid'], event_count: 2 });
    await receiver.waitFor(() => receiver.at(path).length >= 4);
    expect(receiver.at(other.path)).toEqual([]);
  });

  it('refuses to replay to a disabled endpoint, or with since after until', async () => {
    const client = notifications.workspace();
    const { endpoint } = await subscribe(client, receiver);
    expectProblem(await client.post(`/api/v1/webhook_endpoints/${endpoint.id}/replay`, { since: daysAgo(1), until: daysAgo(2) }), 400, 'invalid_request', ['since']);
    expectProblem(await client.post(`/api/v1/webhook_endpoints/${endpoint.id}/replay`, { until: daysAgo(2) }), 400, 'invalid_request', ['since']);
    await client.data(client.patch(`/api/v1/webhook_endpoints/${endpoint.id}`, { status: 'disabled' }));
    expectProblem(await client.post(`/api/v1/webhook_endpoints/${endpoint.id}/replay`, { since: daysAgo(1) }), 409, 'invalid_state');
  });

  it('redelivers an event to every enabled endpoint that receives it, or to the one named', async () => {
    const client = notifications.workspace();
    const first = await subscribe(client, receiver, ['invoice.paid']);
    const second = await subscribe(client, receiver, ['*']);
    const notReceiving = await subscribe(client, receiver, ['invoice.voided']);
    const [paid] = await publishAll(client, [[BILLING_SUBJECTS.invoicePaid, new Date().toISOString()]]);
    await receiver.waitFor(() => receiver.at(first.path).length >= 1 && receiver.at(second.path).length >= 1);

    const all = await client.data(client.post(`/api/v1/events/${paid}/redeliver`));
    expect(all).toEqual({ object: 'event_redelivery', livemode: true, event: paid, endpoints: [first.endpoint.id, second.endpoint.id] });
    await receiver.waitFor(() => receiver.at(first.path).length >= 2 && receiver.at(second.path).length >= 2);
    expect(receiver.at(first.path).map((webhook) => webhook.headers['webhook-id'])).toEqual([paid, paid]);

    const one = await client.data(client.post(`/api/v1/events/${paid}/redeliver`, { endpoint: second.endpoint.id }));
    expect(one).toEqual({ object: 'event_redelivery', livemode: true, event: paid, endpoints: [second.endpoint.id] });
    await receiver.waitFor(() => receiver.at(second.path).length >= 3);
    expect(receiver.at(first.path)).toHaveLength(2);
    expect(receiver.at(notReceiving.path)).toEqual([]);

    await expect
      .poll(async () => (await attemptsOf(client, paid!)).map((attempt) => attempt.trigger).sort())
      .toEqual(['event', 'event', 'redeliver', 'redeliver', 'redeliver']);

    await client.data(client.patch(`/api/v1/webhook_endpoints/${first.endpoint.id}`, { status: 'disabled' }));
    expectProblem(await client.post(`/api/v1/events/${paid}/redeliver`, { endpoint: first.endpoint.id }), 409, 'invalid_state');
    const stranger = await subscribe(notifications.workspace(), receiver);
    expectProblem(await client.post(`/api/v1/events/${paid}/redeliver`, { endpoint: stranger.endpoint.id }), 404, 'not_found');
    expectProblem(await client.post(`/api/v1/events/${paid}/redeliver`, { endpoint: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887' }), 400, 'invalid_request', ['endpoint']);
  });
});
