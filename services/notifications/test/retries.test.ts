import { BILLING_SUBJECTS, parsePublicId, type DeliveryAttempt, type WebhookEndpoint, type WebhookEndpointWithSecret } from '@invoicing/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, publicEventIdOf } from './factories.ts';
import { startNotifications, subscribe, type Notifications, type WorkspaceClient } from './harness.ts';
import { Webhook } from 'standardwebhooks';
import { startReceiver, verifyWebhook, type Receiver, type ReceivedWebhook } from './receiver.ts';

let notifications: Notifications;
let receiver: Receiver;

beforeAll(async () => {
  [notifications, receiver] = await Promise.all([
    // Attempts at once, then after 1 s and 1 s: the default schedule in seconds instead of hours.
    startNotifications('notifications_retries', { WEBHOOK_RETRY_SCHEDULE: '0,1,1', WEBHOOK_TIMEOUT_MS: '1000' }),
    startReceiver(),
  ]);
});
afterAll(async () => {
  await notifications?.close();
  await receiver?.close();
});
afterEach(() => {
  receiver.answerWith(() => ({ status: 200 }));
  notifications.clock.reset();
});


/** Publishes one invoice.paid for the client's workspace; returns its public event id. */
const publishPaid = async (client: WorkspaceClient): Promise<string> => {
  const envelope = makeEnvelope(client.workspaceId, BILLING_SUBJECTS.invoicePaid);
  await notifications.publish(envelope);
  return publicEventIdOf(envelope);
};

/** The event's attempts, oldest first, once `count` of them are recorded. */
const attemptsOnceThere = async (client: WorkspaceClient, eventId: string, count: number): Promise<DeliveryAttempt[]> => {
  let attempts: DeliveryAttempt[] = [];
  await expect
    .poll(async () => {
      attempts = (await client.get(`/api/v1/events/${eventId}/deliveries`)).json<{ data: DeliveryAttempt[] }>().data;
      return attempts.length;
    }, { timeout: 15_000 })
    .toBeGreaterThanOrEqual(count);
  return attempts.toReversed();
};

/** The signature the Standard Webhooks library makes for this webhook with `secret`. */
const signatureWith = (secret: string, webhook: ReceivedWebhook): string =>
  new Webhook(secret).sign(String(webhook.headers['webhook-id']), new Date(Number(webhook.headers['webhook-timestamp']) * 1000), webhook.body);

const endpointOf = (client: WorkspaceClient, id: string) => client.data<WebhookEndpoint>(client.get(`/api/v1/webhook_endpoints/${id}`));

describe('retries', () => {
  it('a receiver answering 500 twice gets the event on the third attempt; each attempt is listed', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith((webhook) => (receiver.at(webhook.path).length <= 2 ? { status: 500, body: 'database down' } : { status: 200, body: 'ok' }));
    const eventId = await publishPaid(client);

    await receiver.waitFor(() => receiver.at(path).length >= 3);
    const arrivals = receiver.at(path);
    expect(arrivals.map((webhook) => webhook.headers['webhook-id'])).toEqual([eventId, eventId, eventId]);
    for (const webhook of arrivals) expect(verifyWebhook(webhook, endpoint.secret)).toMatchObject({ id: eventId, type: 'invoice.paid' });
    expect(arrivals[1]!.at - arrivals[0]!.at).toBeGreaterThanOrEqual(900);
    expect(arrivals[2]!.at - arrivals[1]!.at).toBeGreaterThanOrEqual(900);

    const attempts = await attemptsOnceThere(client, eventId, 3);
    expect(attempts.map(({ attempt, status_code, succeeded, error, response_body }) => ({ attempt, status_code, succeeded, error, response_body }))).toEqual([
      { attempt: 1, status_code: 500, succeeded: false, error: 'HTTP 500', response_body: 'database down' },
      { attempt: 2, status_code: 500, succeeded: false, error: 'HTTP 500', response_body: 'database down' },
      { attempt: 3, status_code: 200, succeeded: true, error: null, response_body: 'ok' },
    ]);
    expect(attempts[0]!.next_attempt_at).not.toBeNull();
    expect(attempts[2]!.next_attempt_at).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_200));
    expect(receiver.at(path)).toHaveLength(3);
    expect(await endpointOf(client, endpoint.id)).toMatchObject({ status: 'enabled', failing_since: null });
  });

  it('gives up after the last attempt of the schedule, and the endpoint shows since when it fails', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith(() => ({ status: 503 }));
    const eventId = await publishPaid(client);

    const attempts = await attemptsOnceThere(client, eventId, 3);
    expect(attempts.map((attempt) => attempt.status_code)).toEqual([503, 503, 503]);
    expect(attempts[2]!.next_attempt_at).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at(path)).toHaveLength(3);
    expect(await endpointOf(client, endpoint.id)).toMatchObject({ status: 'enabled', failing_since: attempts[0]!.attempted_at });
  });

  it("honours the receiver's Retry-After when it asks for longer than the schedule", async () => {
    const { client, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith((webhook) => (receiver.at(webhook.path).length === 1 ? { status: 429, headers: { 'retry-after': '3' } } : { status: 200 }));
    await publishPaid(client);
    await receiver.waitFor(() => receiver.at(path).length >= 2, 15_000);
    const [first, second] = receiver.at(path);
    expect(second!.at - first!.at).toBeGreaterThanOrEqual(2_900);
  });

  it('410 Gone disables the endpoint at once, recorded and visible; it then receives nothing', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith(() => ({ status: 410 }));
    const eventId = await publishPaid(client);

    await expect.poll(() => endpointOf(client, endpoint.id), { timeout: 10_000 }).toMatchObject({ status: 'disabled', disabled_reason: 'gone' });
    const attempts = await attemptsOnceThere(client, eventId, 1);
    expect(attempts).toMatchObject([{ status_code: 410, succeeded: false, next_attempt_at: null }]);
    receiver.answerWith(() => ({ status: 200 }));
    await publishPaid(client);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at(path)).toHaveLength(1);
  });

  it('an endpoint whose every attempt failed for 3 days is disabled, recorded and visible', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith(() => ({ status: 500 }));
    const eventId = await publishPaid(client);
    const [first] = await attemptsOnceThere(client, eventId, 1);
    expect(await endpointOf(client, endpoint.id)).toMatchObject({ status: 'enabled', failing_since: first!.attempted_at });

    notifications.clock.advance(3 * 86_400_000);
    await expect.poll(() => endpointOf(client, endpoint.id), { timeout: 10_000 }).toMatchObject({
      status: 'disabled',
      disabled_reason: 'failing',
      failing_since: first!.attempted_at,
    });
    // The retry still due was dropped with the endpoint.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.at(path)).toHaveLength(2);
  });
});

describe('what a single attempt does', () => {
  it('gives up on a receiver that does not answer within the deadline', async () => {
    const { client, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith(() => 'hang');
    const eventId = await publishPaid(client);
    const [first] = await attemptsOnceThere(client, eventId, 1);
    expect(first).toMatchObject({ status_code: null, succeeded: false, error: 'timed out after 1000 ms' });
    expect(first!.latency_ms).toBeGreaterThanOrEqual(950);
    expect(first!.latency_ms).toBeLessThan(3_000);
    expect(receiver.at(path).length).toBeGreaterThanOrEqual(1);
  });

  it('does not follow redirects', async () => {
    const { client, path } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith((webhook) => (webhook.path === path ? { status: 302, headers: { location: `${path}/elsewhere` } } : { status: 200 }));
    const eventId = await publishPaid(client);
    const [first] = await attemptsOnceThere(client, eventId, 1);
    expect(first).toMatchObject({ status_code: 302, succeeded: false, error: 'HTTP 302' });
    expect(receiver.at(`${path}/elsewhere`)).toEqual([]);
  });

  it('reads at most 64 KiB of a response and keeps its first 4 KiB', async () => {
    const { client } = await subscribe(notifications.workspace(), receiver);
    receiver.answerWith(() => ({ status: 200, body: 'x'.repeat(1024 * 1024) }));
    const eventId = await publishPaid(client);
    const [first] = await attemptsOnceThere(client, eventId, 1);
    expect(first).toMatchObject({ status_code: 200, succeeded: true });
    expect(first!.response_body).toBe('x'.repeat(4096));
  });

  it('checks the address again when connecting: a name that now resolves to loopback is refused', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    // As if DNS had changed since the endpoint was saved: its host now resolves to a loopback address.
    await notifications.service.orm.em
      .fork()
      .execute('update notifications.webhook_endpoints set url = ? where id = ?', [`https://localhost:${receiver.port}${path}`, parsePublicId('webhookEndpoint', endpoint.id)]);
    const eventId = await publishPaid(client);
    const [first] = await attemptsOnceThere(client, eventId, 1);
    expect(first).toMatchObject({ status_code: null, succeeded: false, error: expect.stringMatching(/^address not allowed: localhost resolves to (127\.0\.0\.1|::1), which is not a public address$/) });
    expect(receiver.at(path)).toEqual([]);
  });

  it('signs with both secrets for 24 hours after a rotation, then with the new one alone', async () => {
    const { client, endpoint, path } = await subscribe(notifications.workspace(), receiver);
    const rotated = await client.data<WebhookEndpointWithSecret>(client.post(`/api/v1/webhook_endpoints/${endpoint.id}/rotate_secret`));
    await publishPaid(client);
    await receiver.waitFor(() => receiver.at(path).length >= 1);
    const [during] = receiver.at(path);
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWebhook(during!, endpoint.secret)).toMatchObject({ type: 'invoice.paid' });
    expect(verifyWebhook(during!, rotated.secret)).toMatchObject({ type: 'invoice.paid' });

    notifications.clock.advance(24 * 3600_000 + 1_000);
    await publishPaid(client);
    await receiver.waitFor(() => receiver.at(path).length >= 2);
    const after = receiver.at(path)[1]!;
    // Its timestamp is a day ahead of the real clock, which verify() would refuse as too new: compare signatures instead.
    expect(after.headers['webhook-signature']).toBe(signatureWith(rotated.secret, after));
    expect(after.headers['webhook-signature']).not.toContain(signatureWith(endpoint.secret, after).slice('v1,'.length));
  });
});
