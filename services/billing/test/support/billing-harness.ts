import { randomUUID } from 'node:crypto';
import { createInProcessBus, type EventBus } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { loadConfig } from '../../src/config.ts';
import { billingService, type BillingService } from '../../src/service.ts';
import { CatalogProcess } from './catalog-process.ts';

export const INTERNAL_TOKEN = 'billing-test-internal-token-0123456789abcdef';

/** A clock a test sets; it starts at a fixed instant so dates in assertions are stable. */
export class TestClock implements Clock {
  #now: Date;
  constructor(iso = '2026-11-22T10:00:00.000Z') {
    this.#now = new Date(iso);
  }
  now = (): Date => new Date(this.#now);
  set(iso: string): void {
    this.#now = new Date(iso);
  }
  advance(ms: number): void {
    this.#now = new Date(this.#now.getTime() + ms);
  }
}

export interface Response<T = any> {
  status: number;
  headers: Record<string, unknown>;
  body: T;
}

/** Requests as the gateway forwards them for one workspace and key. */
export const workspaceClient = (service: BillingService, workspaceId = randomUUID(), keyId = `key_${randomUUID().replaceAll('-', '')}`) => {
  const call = async <T = any>(method: string, url: string, payload?: unknown, extraHeaders: Record<string, string> = {}): Promise<Response<T>> => {
    const response = await service.app.inject({
      method: method as 'GET',
      url,
      headers: {
        'x-internal-token': INTERNAL_TOKEN,
        'x-workspace-id': workspaceId,
        'x-api-key-id': keyId,
        'x-request-id': `req-${randomUUID()}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...extraHeaders,
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: response.statusCode, headers: response.headers, body: (response.body ? response.json() : undefined) as T };
  };
  return { workspaceId, keyId, call };
};
export type WorkspaceClient = ReturnType<typeof workspaceClient>;

export interface BillingHarness {
  database: TestDatabase;
  catalog: CatalogProcess;
  clock: TestClock;
  bus: EventBus;
  /** Every service started on this database (a test may start more, as replicas). */
  start: (options?: { bus?: EventBus; env?: Record<string, string> }) => Promise<BillingService>;
  service: BillingService;
  /** Rows of SQL on the test database. */
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  close: () => Promise<void>;
}

/** A fresh database, the real catalog on it, and billing built around a controllable clock. */
export const startBillingHarness = async (options: { bus?: EventBus; env?: Record<string, string> } = {}): Promise<BillingHarness> => {
  const database = await createTestDatabase('billing');
  const catalog = await CatalogProcess.launch(database.url, INTERNAL_TOKEN);
  const clock = new TestClock();
  const bus = options.bus ?? createInProcessBus();
  const started: BillingService[] = [];
  const start = async ({ bus: ownBus = bus, env = {} }: { bus?: EventBus; env?: Record<string, string> } = {}) => {
    const config = loadConfig({
      DATABASE_URL: database.url,
      INTERNAL_TOKEN,
      CATALOG_URL: catalog.url,
      LOG_LEVEL: 'error',
      OUTBOX_POLL_MS: '50',
      OVERDUE_SWEEP_INTERVAL_MS: '3600000',
      ...options.env,
      ...env,
    });
    const service = await billingService.create(config, { bus: ownBus, clock });
    await service.start();
    started.push(service);
    return service;
  };
  const service = await start();
  return {
    database,
    catalog,
    clock,
    bus,
    start,
    service,
    sql: async <T>(text: string, params: unknown[] = []) => (await service.orm.em.fork().execute(text, params)) as T[],
    close: async () => {
      for (const each of started) await each.stop();
      await catalog.stop();
      await database.drop();
    },
  };
};

/** Seeds the catalog of one workspace through its API. */
export const catalogSeeder = (harness: BillingHarness, workspaceId: string) => {
  const headers = { workspaceId };
  return {
    customer: (body: Record<string, unknown> = {}) =>
      harness.catalog.call<{ id: string; name: string }>('POST', '/api/v1/customers', headers, { name: 'Müller GmbH', email: 'billing@mueller.example', address: { line1: 'Straße 5', city: 'Köln', country: 'DE' }, tax_id: 'DE123456789', ...body }),
    updateCustomer: (id: string, body: Record<string, unknown>) => harness.catalog.call('PATCH', `/api/v1/customers/${id}`, headers, body),
    deleteCustomer: (id: string) => harness.catalog.call('DELETE', `/api/v1/customers/${id}`, headers),
    product: (body: Record<string, unknown> = {}) => harness.catalog.call<{ id: string; name: string }>('POST', '/api/v1/products', headers, { name: 'Consulting hour', ...body }),
    price: (product: string, body: Record<string, unknown> = {}) =>
      harness.catalog.call<{ id: string; unit_amount: number; currency: string; tax_rate: number }>('POST', '/api/v1/prices', headers, { product, unit_amount: 12_000, currency: 'EUR', tax_rate: 19, ...body }),
    archivePrice: (id: string) => harness.catalog.call('DELETE', `/api/v1/prices/${id}`, headers),
  };
};
