import { randomUUID } from 'node:crypto';
import type { Invoice } from '@invoicing/contracts';
import { createInProcessBus, type EventBus } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { loadConfig } from '../../src/config.ts';
import { subscriptionsService, type SubscriptionsService } from '../../src/service.ts';
import { ServiceProcess } from './service-process.ts';

export const INTERNAL_TOKEN = 'subscriptions-test-internal-token-0123456789';

/** A clock a test sets. */
export class TestClock implements Clock {
  #now: Date;
  constructor(iso: string) {
    this.#now = new Date(iso);
  }
  now = (): Date => new Date(this.#now);
  set(iso: string): void {
    this.#now = new Date(iso);
  }
}

export interface SubscriptionsHarness {
  database: TestDatabase;
  catalog: ServiceProcess;
  billing: ServiceProcess;
  clock: TestClock;
  bus: EventBus;
  service: SubscriptionsService;
  /** Another replica on the same database, clock and upstreams. */
  replica: () => Promise<SubscriptionsService>;
  sql: <T = Record<string, unknown>>(text: string, params?: unknown[]) => Promise<T[]>;
  close: () => Promise<void>;
}

/**
 * A fresh database with the real catalog and billing as child processes, and the subscriptions
 * service built in-process around a controllable clock; its scheduler never ticks by itself
 * (`scheduler.runOnce()` is the test's to call).
 */
export const startSubscriptionsHarness = async (now = '2027-04-15T10:00:00.000Z'): Promise<SubscriptionsHarness> => {
  const database = await createTestDatabase('subscriptions');
  const catalog = await ServiceProcess.launch('catalog', database.url, INTERNAL_TOKEN);
  const billing = await ServiceProcess.launch('billing', database.url, INTERNAL_TOKEN, { CATALOG_URL: catalog.url, OVERDUE_SWEEP_INTERVAL_MS: '3600000' });
  const clock = new TestClock(now);
  const bus = createInProcessBus();
  const started: SubscriptionsService[] = [];
  const create = async () => {
    const config = loadConfig({
      DATABASE_URL: database.url,
      INTERNAL_TOKEN,
      CATALOG_URL: catalog.url,
      BILLING_URL: billing.url,
      LOG_LEVEL: 'error',
      OUTBOX_POLL_MS: '50',
      SUBSCRIPTION_SCHEDULER_INTERVAL_MS: '3600000',
      SUBSCRIPTION_SCHEDULER_CONCURRENCY: '8',
      DATABASE_POOL_SIZE: '6',
    });
    const service = await subscriptionsService.create(config, { bus, clock });
    await service.prepareDatabase();
    started.push(service);
    return service;
  };
  const service = await create();
  return {
    database,
    catalog,
    billing,
    clock,
    bus,
    service,
    replica: create,
    sql: async <T>(text: string, params: unknown[] = []) => (await service.orm.em.fork().execute(text, params)) as T[],
    close: async () => {
      for (const each of started) await each.stop();
      await billing.stop();
      await catalog.stop();
      await database.drop();
    },
  };
};

/** Requests as the gateway forwards them, for one workspace. */
export const workspaceOf = (harness: SubscriptionsHarness, workspaceId = randomUUID()) => {
  const call = async <T = any>(method: string, url: string, payload?: unknown, headers: Record<string, string> = {}) => {
    const response = await harness.service.app.inject({
      method: method as 'GET',
      url,
      headers: {
        'x-internal-token': INTERNAL_TOKEN,
        'x-workspace-id': workspaceId,
        'x-api-key-id': 'key_test',
        'x-request-id': `req-${randomUUID()}`,
        ...(payload === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(payload === undefined ? {} : { payload: JSON.stringify(payload) }),
    });
    return { status: response.statusCode, body: (response.body ? response.json() : undefined) as T };
  };
  const seed = {
    customer: () => harness.catalog.data<{ id: string }>('POST', '/api/v1/customers', workspaceId, { name: 'Müller GmbH', email: 'billing@mueller.example' }),
    product: () => harness.catalog.data<{ id: string }>('POST', '/api/v1/products', workspaceId, { name: 'Pro plan' }),
    price: async (body: Record<string, unknown> = {}) => {
      const product = await seed.product();
      return harness.catalog.data<{ id: string }>('POST', '/api/v1/prices', workspaceId, {
        product: product.id,
        unit_amount: 4_900,
        currency: 'EUR',
        tax_rate: 19,
        type: 'recurring',
        recurring: { interval: 'month', interval_count: 1 },
        ...body,
      });
    },
  };
  /** Every invoice of the workspace, oldest first, read from billing's API. */
  const invoices = async (): Promise<Invoice[]> => {
    const all: Invoice[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: { data: Invoice[]; next_cursor: string | null } } = await harness.billing.call('GET', `/api/v1/invoices?limit=100${cursor ? `&cursor=${cursor}` : ''}`, workspaceId);
      all.push(...page.body.data);
      cursor = page.body.next_cursor;
    } while (cursor);
    return all.reverse();
  };
  return { workspaceId, call, seed, invoices, create: (body: unknown) => call('POST', '/api/v1/subscriptions', body, { 'x-idempotency-key': randomUUID() }) };
};
