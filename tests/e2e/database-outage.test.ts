// Services started as their own processes (`main.ts`) on a database behind a TCP proxy that the
// tests cut and restore: they must stay up, say why they are not ready, and recover by themselves.
import { randomUUID } from 'node:crypto';
import { createTestDatabase, freePort, natsUrl, TcpProxy, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateInternalToken } from '../../deploy/local/platform.ts';
import { ServiceProcess } from '../../deploy/local/service-process.ts';

const INTERNAL_TOKEN = generateInternalToken();
const PROBLEM = 'application/problem+json';

interface Answer {
  status: number;
  type: string;
  body: Record<string, unknown>;
  ms: number;
}

const call = async (url: string, init: RequestInit = {}): Promise<Answer> => {
  const started = Date.now();
  const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, type: response.headers.get('content-type') ?? '', body, ms: Date.now() - started };
};

/** A request as the gateway forwards it: the internal token and the caller's headers. */
const api = (service: ServiceProcess, path: string, init: { method?: string; body?: unknown } = {}) =>
  call(`${service.url}${path}`, {
    method: init.method ?? 'GET',
    headers: {
      'x-internal-token': INTERNAL_TOKEN,
      'x-workspace-id': WORKSPACE,
      'x-api-key-id': 'key_outage',
      ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(init.body === undefined ? {} : { body: JSON.stringify(init.body) }),
  });

const WORKSPACE = randomUUID();

const eventually = async <T>(attempt: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const result = await attempt().catch(() => undefined);
    if (result !== undefined) return result;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

let database: TestDatabase;
let proxy: TcpProxy;
const started: ServiceProcess[] = [];

const launch = async (name: string, env: Record<string, string> = {}): Promise<ServiceProcess> => {
  const port = await freePort();
  const service = new ServiceProcess(name, port, {
    PATH: process.env.PATH ?? '',
    HOST: '127.0.0.1',
    PORT: String(port),
    DATABASE_URL: proxy.rewrite(database.url),
    INTERNAL_TOKEN,
    LOG_LEVEL: 'warn',
    ...env,
  });
  started.push(service);
  await eventually(async () => ((await call(`${service.url}/healthz`)).status === 200 ? true : undefined), 20_000, `${name} answering /healthz`);
  return service;
};

beforeAll(async () => {
  database = await createTestDatabase('outage');
  const { hostname, port } = new URL(database.url);
  proxy = await TcpProxy.start({ host: hostname, port: Number(port || 5432) });
});

afterAll(async () => {
  await Promise.all(started.map((service) => service.stop()));
  await proxy?.close();
  await database?.drop();
});

const expectNotReadyNamingTheDatabase = async (service: ServiceProcess) => {
  const readyz = await call(`${service.url}/readyz`);
  expect(readyz.status).toBe(503);
  expect(readyz.type).toContain(PROBLEM);
  expect(readyz.body.code).toBe('unavailable');
  expect(readyz.body.detail).toMatch(new RegExp(`database at 127\\.0\\.0\\.1:${proxy.port} unreachable: ECONNREFUSED`));
  const password = new URL(database.url).password;
  if (password) expect(String(readyz.body.detail)).not.toContain(password);
};

describe('a service started while PostgreSQL is away', () => {
  it('catalog stays up, answers /healthz 200 and /readyz 503 naming the database, and serves once it returns, without a restart', async () => {
    await proxy.cut();
    const catalog = await launch('catalog');
    await expectNotReadyNamingTheDatabase(catalog);
    const early = await api(catalog, '/api/v1/customers');
    expect(early.status).toBe(503);
    expect(early.type).toContain(PROBLEM);
    expect(early.body.code).toBe('unavailable');

    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(catalog.running).toBe(true);
    await proxy.restore();
    await catalog.waitUntilReady(20_000);
    const created = await api(catalog, '/api/v1/customers', { method: 'POST', body: { name: 'Back Online GmbH' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
  }, 60_000);

  it('billing, which publishes events, does the same with NATS up and PostgreSQL away', async () => {
    await proxy.cut();
    const billing = await launch('billing', { NATS_URL: natsUrl() });
    await expectNotReadyNamingTheDatabase(billing);
    expect((await api(billing, '/api/v1/invoices')).status).toBe(503);
    expect(billing.running).toBe(true);

    await proxy.restore();
    await billing.waitUntilReady(20_000);
    const invoices = await api(billing, '/api/v1/invoices');
    expect(invoices.status, JSON.stringify(invoices.body)).toBe(200);
  }, 60_000);
});

describe('a running service that loses PostgreSQL', () => {
  it('answers 503 problem+json within 2 s, keeps running, says why on /readyz, and serves again once it returns', async () => {
    await proxy.restore();
    const catalog = await launch('catalog');
    await catalog.waitUntilReady(20_000);
    expect((await api(catalog, '/api/v1/customers')).status).toBe(200);

    await proxy.cut();
    const during = await api(catalog, '/api/v1/customers');
    expect(during.status).toBe(503);
    expect(during.type).toContain(PROBLEM);
    expect(during.body.code).toBe('unavailable');
    expect(during.ms).toBeLessThan(2_000);
    await expectNotReadyNamingTheDatabase(catalog);
    const write = await api(catalog, '/api/v1/customers', { method: 'POST', body: { name: 'Lost Connection AG' } });
    expect(write.status).toBe(503);
    expect(write.ms).toBeLessThan(2_000);
    expect(catalog.running).toBe(true);

    await proxy.restore();
    await eventually(async () => ((await api(catalog, '/api/v1/customers')).status === 200 ? true : undefined), 10_000, 'catalog serving again');
    await catalog.waitUntilReady(5_000);
    expect(catalog.running).toBe(true);
  }, 60_000);
});
