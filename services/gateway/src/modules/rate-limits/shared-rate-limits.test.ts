import { randomUUID } from 'node:crypto';
import { freePort, RedisServerProcess, redisUrl } from '@invoicing/testing';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../app.ts';
import { loadConfig } from '../../config.ts';
import { openGatewayDatabase } from '../../database.ts';
import { bearer, INTERNAL_TOKEN, startGateway, type GatewayFixture } from '../../testing/gateway-fixture.ts';
import { startUpstreamRecorder, type UpstreamRecorder } from '../../testing/upstream-recorder.ts';

const RATE_LIMIT_MAX = 4;
const PUBLIC_RATE_LIMIT_MAX = 3;
const PAGE = '/i/0123456789abcdef0123456789abcdef';

let upstream: UpstreamRecorder;
/** The first replica, on its own database, with the operator command to make keys. */
let first: GatewayFixture;
/** The second replica: another app on the first one's database and the same Redis. */
let second: FastifyInstance;
const closeAfterwards: Array<() => Promise<unknown>> = [];

/** The settings of every replica here; a key prefix of their own keeps them apart from other test files on the run's Redis. */
const replicaSettings = (env: Record<string, string>) => ({
  CATALOG_URL: upstream.url,
  DOCUMENTS_URL: upstream.url,
  RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
  PUBLIC_RATE_LIMIT_MAX: String(PUBLIC_RATE_LIMIT_MAX),
  RATE_LIMIT_WINDOW_MS: '60000',
  REDIS_KEY_PREFIX: `test:${randomUUID()}:`,
  ...env,
});

/** What a replica logs at `level` and above. */
const collectLogs = (level = 'warn') => {
  const lines: string[] = [];
  return {
    logger: { level, stream: { write: (line: string) => lines.push(line) } },
    /** The messages about the rate-limit store. */
    storeMessages: () => lines.map((line) => (JSON.parse(line) as { msg: string }).msg).filter((msg) => msg.includes('REDIS_URL')),
  };
};

/** Another gateway process on `databaseUrl`, as a further replica of a deployment would be. */
const startReplica = async (databaseUrl: string, settings: Record<string, string>, logger?: ReturnType<typeof collectLogs>['logger']) => {
  const orm = await openGatewayDatabase(databaseUrl, 2);
  const app = await buildApp({ config: loadConfig({ DATABASE_URL: databaseUrl, INTERNAL_TOKEN, LOG_LEVEL: 'silent', ...settings }), orm, logger });
  await app.ready();
  closeAfterwards.push(async () => {
    await app.close();
    await orm.close();
  });
  return app;
};

beforeAll(async () => {
  upstream = await startUpstreamRecorder();
  const settings = replicaSettings({ REDIS_URL: redisUrl() });
  first = await startGateway({ env: settings });
  second = await startReplica(first.databaseUrl, settings);
});
afterAll(async () => {
  for (const close of closeAfterwards.reverse()) await close();
  await first?.close();
  await upstream?.close();
});

const listCustomers = (app: FastifyInstance, key: string, remoteAddress = '198.51.100.1') =>
  app.inject({ method: 'GET', url: '/api/v1/customers', remoteAddress, headers: bearer(key) });
const openPublicPage = (app: FastifyInstance, remoteAddress: string) => app.inject({ method: 'GET', url: PAGE, remoteAddress });

/** The statuses of the requests, made one after the other. */
const statusesOf = async (requests: Array<() => Promise<{ statusCode: number }>>) => {
  const statuses = [];
  for (const request of requests) statuses.push((await request()).statusCode);
  return statuses;
};

/** `count` requests, sent to the replicas in turn, starting with the first. */
const alternately = (count: number, send: (app: FastifyInstance) => Promise<{ statusCode: number }>) =>
  Array.from({ length: count }, (_, index) => () => send(index % 2 === 0 ? first.app : second));

describe('two replicas on one Redis', () => {
  it('hold RATE_LIMIT_MAX for a key in total: exactly that many succeed across both, then either answers 429', async () => {
    const { key } = await first.createKey(['clients:read']);

    const statuses = await statusesOf(alternately(RATE_LIMIT_MAX, (app) => listCustomers(app, key)));
    const refusedByFirst = await listCustomers(first.app, key);
    const refusedBySecond = await listCustomers(second, key);

    expect(statuses).toEqual([200, 200, 200, 200]);
    expect([refusedByFirst.statusCode, refusedBySecond.statusCode]).toEqual([429, 429]);
    expect(refusedBySecond.json()).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/^Rate limit of 4 requests per 60 s for this API key exceeded/) });
    expect(Number(refusedBySecond.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('hold PUBLIC_RATE_LIMIT_MAX for a client address in total, and count other addresses apart', async () => {
    const reader = '203.0.113.7';

    const statuses = await statusesOf(alternately(PUBLIC_RATE_LIMIT_MAX, (app) => openPublicPage(app, reader)));
    const refused = await statusesOf([() => openPublicPage(first.app, reader), () => openPublicPage(second, reader)]);

    expect(statuses).toEqual([200, 200, 200]);
    expect(refused).toEqual([429, 429]);
    expect((await openPublicPage(second, '203.0.113.8')).statusCode).toBe(200);
  });

  it("keep deployments with different REDIS_KEY_PREFIX apart on the same Redis", async () => {
    const { key } = await first.createKey(['clients:read']);
    const otherDeployment = await startReplica(first.databaseUrl, replicaSettings({ REDIS_URL: redisUrl() }));

    const spent = await statusesOf(alternately(RATE_LIMIT_MAX + 1, (app) => listCustomers(app, key)));

    expect(spent).toEqual([200, 200, 200, 200, 429]);
    expect((await listCustomers(otherDeployment, key)).statusCode).toBe(200);
  });
});

describe('a Redis that does not answer', () => {
  it('lets requests pass unlimited rather than fail, and logs that once, not per request', async () => {
    const logs = collectLogs();
    const closedPort = await freePort();
    const replica = await startReplica(first.databaseUrl, replicaSettings({ REDIS_URL: `redis://127.0.0.1:${closedPort}` }), logs.logger);
    const { key } = await first.createKey(['clients:read']);

    const keyStatuses = await statusesOf(Array.from({ length: RATE_LIMIT_MAX + 2 }, () => () => listCustomers(replica, key)));
    const publicStatuses = await statusesOf(Array.from({ length: PUBLIC_RATE_LIMIT_MAX + 2 }, () => () => openPublicPage(replica, '203.0.113.9')));

    expect(new Set(keyStatuses)).toEqual(new Set([200]));
    expect(new Set(publicStatuses)).toEqual(new Set([200]));
    expect((await replica.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    expect(logs.storeMessages()).toEqual([expect.stringMatching(/unreachable: requests pass without rate limits/)]);
  });

  it('applies the limits again once a lost Redis is back, without a restart of the gateway', async () => {
    // A Redis of this test's own: the run's must stay up for the other test files.
    const redis = await RedisServerProcess.launch();
    closeAfterwards.push(() => redis.dispose());
    const logs = collectLogs('info');
    const replica = await startReplica(first.databaseUrl, replicaSettings({ REDIS_URL: redis.url }), logs.logger);
    const { key } = await first.createKey(['clients:read']);
    const spend = () => statusesOf(Array.from({ length: RATE_LIMIT_MAX + 1 }, () => () => listCustomers(replica, key)));

    expect(await spend()).toEqual([200, 200, 200, 200, 429]);
    await redis.stop();
    expect(await spend()).toEqual([200, 200, 200, 200, 200]);
    await redis.start();
    await expect.poll(() => logs.storeMessages().at(-1), { timeout: 10_000 }).toMatch(/answers again/);

    // The restarted Redis kept nothing, so the key has its whole budget again, and no more.
    expect(await spend()).toEqual([200, 200, 200, 200, 429]);
    // The drop, perhaps a failed reconnect (when one came before Redis was back), the return.
    const messages = logs.storeMessages();
    expect(messages[0]).toMatch(/connection lost: requests pass without rate limits/);
    expect(messages.slice(1, -1)).toEqual(messages.length === 3 ? [expect.stringMatching(/unreachable/)] : []);
    expect(messages.at(-1)).toMatch(/answers again/);
    // ioredis backs off up to 5 s between attempts: room for a slow one on a busy machine.
  }, 15_000);
});
