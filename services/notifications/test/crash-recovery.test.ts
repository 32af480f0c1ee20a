import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { BILLING_SUBJECTS, type WebhookEndpointWithSecret } from '@invoicing/contracts';
import { connectJetStreamBus, repositoryRoot, type EventBus } from '@invoicing/service-kit';
import { createTestDatabase, freePort, NatsServerProcess, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeEnvelope, publicEventIdOf } from './factories.ts';
import { INTERNAL_TOKEN } from './harness.ts';
import { startReceiver, verifyWebhook, type Receiver } from './receiver.ts';

const EVENTS = 500;
const NODE = `${repositoryRoot()}node_modules/.bin/node`;
const MAIN = fileURLToPath(new URL('../src/main.ts', import.meta.url));

let database: TestDatabase;
let nats: NatsServerProcess;
let billing: EventBus;
let receiver: Receiver;
let port: number;
const children: ChildProcess[] = [];

/** The service as it runs in production: its main.ts in a process of its own. */
const startProcess = async (env: Record<string, string>): Promise<ChildProcess> => {
  const child = spawn(NODE, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  children.push(child);
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`notifications exited with ${child.exitCode} while starting`);
    const ready = await fetch(`http://127.0.0.1:${port}/readyz`).then((response) => response.ok, () => false);
    if (ready) return child;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('notifications did not become ready within 30 s');
};

const api = (workspaceId: string, path: string, init: RequestInit = {}) =>
  fetch(`http://127.0.0.1:${port}${path}`, {
    ...init,
    headers: { 'content-type': 'application/json', 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' },
  });

/** How many events the workspace's event log holds, counted through the API. */
const storedEvents = async (workspaceId: string): Promise<number> => {
  let count = 0;
  let cursor: string | null = null;
  do {
    const page = (await (await api(workspaceId, `/api/v1/events?limit=100${cursor ? `&cursor=${cursor}` : ''}`)).json()) as { data: unknown[]; next_cursor: string | null };
    count += page.data.length;
    cursor = page.next_cursor;
  } while (cursor);
  return count;
};

const killHard = (child: ChildProcess): Promise<void> =>
  new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });

beforeAll(async () => {
  [database, nats, receiver, port] = await Promise.all([createTestDatabase('notifications_crash'), NatsServerProcess.launch(), startReceiver(), freePort()]);
  billing = await connectJetStreamBus({ url: nats.url, name: 'billing-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) await killHard(child);
  await billing?.close();
  await receiver?.close();
  await nats?.dispose();
  await database?.drop();
});

describe('a notifications process killed with SIGKILL', () => {
  it(`loses none of ${EVENTS} pending events: after a restart each arrives, signed, at least once`, async () => {
    const env = {
      PORT: String(port),
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      INTERNAL_TOKEN,
      LOG_LEVEL: 'fatal',
      WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
      WEBHOOK_RETRY_SCHEDULE: '0,1,1,1,1,1,1,1,1,1',
      // A claim held by the killed process is taken over once the deadline and its margin have passed.
      WEBHOOK_TIMEOUT_MS: '2000',
      WEBHOOK_POLL_MS: '100',
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    };
    const first = await startProcess(env);
    const workspaceId = randomUUID();
    const response = await api(workspaceId, '/api/v1/webhook_endpoints', {
      method: 'POST',
      body: JSON.stringify({ url: receiver.url('/crash'), enabled_events: ['invoice.paid'] }),
    });
    expect(response.status).toBe(201);
    const { data: endpoint } = (await response.json()) as { data: WebhookEndpointWithSecret };

    // The receiver takes the first hundred, then stops answering: the rest stay in flight or queued.
    receiver.answerWith(() => (receiver.received.length <= 100 ? { status: 200 } : 'hang'));
    const published = Array.from({ length: EVENTS }, () => makeEnvelope(workspaceId, BILLING_SUBJECTS.invoicePaid));
    for (const envelope of published) await billing.publish(envelope);
    // Every event stored with its delivery, most of them still to be sent: that is what the kill interrupts.
    await expect.poll(() => storedEvents(workspaceId), { timeout: 30_000, interval: 100 }).toBe(EVENTS);

    await killHard(first);
    const arrivedBeforeKill = new Set(receiver.received.map((webhook) => webhook.headers['webhook-id'])).size;
    expect(arrivedBeforeKill).toBeLessThan(EVENTS / 2);

    receiver.answerWith(() => ({ status: 200 }));
    await startProcess(env);
    const expected = published.map(publicEventIdOf);
    const arrived = () => new Set(receiver.received.map((webhook) => String(webhook.headers['webhook-id'])));
    await receiver.waitFor(() => arrived().size >= EVENTS, 60_000, `all ${EVENTS} events`);

    expect(expected.filter((id) => !arrived().has(id))).toEqual([]);
    expect(arrived().size).toBe(EVENTS);
    for (const webhook of receiver.received) expect(verifyWebhook(webhook, endpoint.secret)).toMatchObject({ type: 'invoice.paid' });
  }, 120_000);
});
