import { randomBytes, randomUUID } from 'node:crypto';
import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { connectJetStreamBus, type EventBus } from '@invoicing/service-kit';
import { createTestDatabase, freePort, NatsServerProcess, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceProcess } from '../../../deploy/local/service-process.ts';
import { makeEnvelope } from './factories.ts';
import { INTERNAL_TOKEN } from './harness.ts';

// Its own prefix, so this also shows NATS_PREFIX reaching the service's bus from its settings.
const NATS_PREFIX = 'start-test';

let database: TestDatabase;
let nats: NatsServerProcess;
let service: ServiceProcess | undefined;
let billing: EventBus | undefined;

const get = async (url: string, headers: Record<string, string> = {}) => {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5_000) });
  return { status: response.status, body: await response.text() };
};

beforeAll(async () => {
  [database, nats] = await Promise.all([createTestDatabase('notifications_no_nats'), NatsServerProcess.launch()]);
  await nats.stop();
});

afterAll(async () => {
  await service?.stop();
  await billing?.close();
  await nats?.dispose();
  await database?.drop();
});

describe('a notifications process started while NATS is down', () => {
  it('stays up, answers /healthz but not /readyz (naming NATS), and becomes ready and consumes once NATS starts', async () => {
    const port = await freePort();
    service = new ServiceProcess('notifications', port, {
      PATH: process.env.PATH ?? '',
      PORT: String(port),
      DATABASE_URL: database.url,
      NATS_URL: nats.url,
      NATS_PREFIX,
      INTERNAL_TOKEN,
      LOG_LEVEL: 'warn',
      WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    });

    await expect
      .poll(async () => (service?.running ? await get(`${service.url}/healthz`).then(({ status }) => status, () => 'not listening') : `exited. ${service?.tail()}`), {
        timeout: 30_000,
        interval: 100,
      })
      .toBe(200);
    // Long enough for several connection attempts to have failed.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(service.running, service.tail()).toBe(true);
    const readiness = await get(`${service.url}/readyz`);
    expect(readiness.status).toBe(503);
    expect(readiness.body).toContain(`NATS at ${nats.url} is unreachable`);

    await nats.start();
    await service.waitUntilReady(15_000);

    // The consumers registered at start run now: an event published afterwards reaches the event log.
    billing = await connectJetStreamBus({ url: nats.url, name: 'billing-test', replicas: 1, maxAgeMs: 3600_000, prefix: NATS_PREFIX, onError: () => {} });
    const workspaceId = randomUUID();
    await billing.publish(makeEnvelope(workspaceId, BILLING_SUBJECTS.invoicePaid));
    const headers = { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' };
    await expect
      .poll(async () => (JSON.parse((await get(`${service!.url}/api/v1/events`, headers)).body) as { data?: Array<{ type: string }> }).data?.map((event) => event.type), {
        timeout: 15_000,
        interval: 200,
      })
      .toEqual(['invoice.paid']);
  }, 90_000);
});
