export { expectProblem } from '@invoicing/testing';
import { randomBytes, randomUUID } from 'node:crypto';
import type { EventEnvelope, WebhookEndpointWithSecret } from '@invoicing/contracts';
import { connectJetStreamBus, type EventBus } from '@invoicing/service-kit';
import { createTestDatabase, NatsServerProcess } from '@invoicing/testing';
import type { LightMyRequestResponse as Reply } from 'fastify';
import { expect } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { notificationsService } from '../src/service.ts';
import type { Receiver } from './receiver.ts';

export const INTERNAL_TOKEN = 'notifications-test-internal-token-0123456789';

type Method = 'GET' | 'POST' | 'PATCH' | 'DELETE';

/** A clock that runs normally until moved: tests that are about days passing move it, then reset it. */
export const controllableClock = () => {
  let offsetMs = 0;
  return {
    now: (): Date => new Date(Date.now() + offsetMs),
    advance: (ms: number) => {
      offsetMs += ms;
    },
    reset: () => {
      offsetMs = 0;
    },
  };
};

/**
 * The notifications service in this process on a fresh database and its own NATS server (durable
 * consumer names are fixed, so sharing a server with other test files would split the events),
 * with a JetStream publisher standing in for billing.
 */
export const startNotifications = async (label: string, env: Record<string, string> = {}) => {
  const database = await createTestDatabase(label);
  const nats = await NatsServerProcess.launch();
  const connect = (name: string) => connectJetStreamBus({ url: nats.url, name, replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
  const bus: EventBus = await connect('notifications-test');
  const billing: EventBus = await connect('billing-test');
  const clock = controllableClock();
  const config = loadConfig({
    DATABASE_URL: database.url,
    DATABASE_POOL_SIZE: '8',
    INTERNAL_TOKEN,
    NATS_URL: nats.url,
    LOG_LEVEL: 'silent',
    WEBHOOK_ALLOWED_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '0,1,1',
    WEBHOOK_POLL_MS: '50',
    WEBHOOK_SECRETS_KEY: randomBytes(32).toString('base64'),
    ...env,
  });
  const service = await notificationsService.create(config, { bus, logger: false, clock });
  await service.start();
  await service.app.ready();
  const { app } = service;
  const replicas: { stop: () => Promise<void> }[] = [];

  const workspaceClient = (workspaceId: string) => {
    const headers = { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' };
    const send = (method: Method, url: string, body?: unknown) =>
      app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as object }) });
    return {
      workspaceId,
      get: (url: string) => send('GET', url),
      post: (url: string, body?: unknown) => send('POST', url, body),
      patch: (url: string, body: unknown) => send('PATCH', url, body),
      delete: (url: string) => send('DELETE', url),
      /** The `data` of a 2xx reply; fails the test with the problem otherwise. */
      data: async <T = Record<string, unknown>>(reply: Promise<Reply> | Reply): Promise<T> => {
        const settled = await reply;
        expect(settled.statusCode, settled.body).toBeLessThan(300);
        return settled.json<{ data: T }>().data;
      },
    };
  };

  return {
    app,
    service,
    config,
    clock,
    databaseUrl: database.url,
    /** A client acting for a new workspace (or the given one), with the headers the gateway sets. */
    workspace: (workspaceId: string = randomUUID()) => workspaceClient(workspaceId),
    /** Publishes as billing's outbox does: onto JetStream, the event id as Nats-Msg-Id. */
    publish: (envelope: EventEnvelope) => billing.publish(envelope),
    /** Another replica on the same database and NATS: it shares the consumers and the deliveries. */
    startReplica: async () => {
      const replicaBus = await connect(`notifications-replica-${replicas.length}`);
      const replica = await notificationsService.create(config, { bus: replicaBus, logger: false, clock });
      await replica.start();
      replicas.push({
        stop: async () => {
          await replica.stop();
          await replicaBus.close();
        },
      });
      return replica;
    },
    close: async () => {
      for (const replica of replicas) await replica.stop();
      await service.stop();
      await Promise.all([bus.close(), billing.close()]);
      await nats.dispose();
      await database.drop();
    },
  };
};
export type Notifications = Awaited<ReturnType<typeof startNotifications>>;
export type WorkspaceClient = ReturnType<Notifications['workspace']>;

let endpointCount = 0;

/** A new endpoint of the client's workspace, on a path of the receiver that no other endpoint uses. */
export const subscribe = async (client: WorkspaceClient, receiver: Receiver, enabledEvents: string[] = ['*']) => {
  const path = `/endpoint-${++endpointCount}`;
  const endpoint = await client.data<WebhookEndpointWithSecret>(client.post('/api/v1/webhook_endpoints', { url: receiver.url(path), enabled_events: enabledEvents }));
  return { client, endpoint, path };
};
