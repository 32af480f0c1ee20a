import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

let system: TestSystem;
let api: ApiClient;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog', 'billing', 'notifications', 'subscriptions'], ownNats: true, env: { SUBSCRIPTION_SCHEDULER_INTERVAL_MS: '200' } });
  const minted = await system.mintKey(`subscriptions-${randomUUID().slice(0, 8)}`, 'all');
  api = system.client(minted.key);
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 30_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 500)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

/** The calendar month `months` before today's, on day `day` (at most 28, so it exists in every month). */
const monthsAgo = (months: number, day: number) => {
  const now = new Date();
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - months, day)).toISOString().slice(0, 10);
};

describe('subscriptions through the gateway', () => {
  it('a subscription started in the past gets one finalized invoice per period, and its events reach the event log', async () => {
    const customer = await api.POST('/api/v1/customers', { body: { name: 'Subscriber GmbH' } });
    const product = await api.POST('/api/v1/products', { body: { name: 'Team plan' } });
    const price = await api.POST('/api/v1/prices', {
      body: { product: product.data!.data.id, unit_amount: 2_500, currency: 'EUR', tax_rate: 19, type: 'recurring', recurring: { interval: 'month', interval_count: 1 } },
    });
    // Two full months back (day 1): three periods have begun.
    const startDate = monthsAgo(2, 1);
    const created = await api.POST('/api/v1/subscriptions', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { customer: customer.data!.data.id, items: [{ price: price.data!.data.id, quantity: 2 }], start_date: startDate, metadata: { plan: 'team' } },
    });
    expect(created.response.status).toBe(201);
    const subscription = created.data!.data;
    expect(subscription).toMatchObject({ status: 'active', start_date: startDate, current_period_start: monthsAgo(0, 1), interval: 'month', metadata: { plan: 'team' } });

    const invoices = await waitFor(
      async () => (await api.GET('/api/v1/invoices', { params: { query: { limit: 100 } } })).data!.data.filter((invoice) => invoice.subscription === subscription.id),
      (found) => found.length >= 3 && found.every((invoice) => invoice.status === 'open'),
      'three finalized invoices',
    );
    expect(invoices.map((invoice) => invoice.lines.data[0]!.period?.start).sort()).toEqual([monthsAgo(2, 1), monthsAgo(1, 1), monthsAgo(0, 1)]);
    expect(invoices.every((invoice) => invoice.lines.data[0]!.quantity === 2 && invoice.total === 5_950)).toBe(true);

    const events = await waitFor(
      async () => (await api.GET('/api/v1/events', { params: { query: { limit: 100 } } })).data!.data.filter((event) => event.type.startsWith('subscription.')),
      (found) => found.filter((event) => event.type === 'subscription.updated').length >= 3,
      'subscription events',
    );
    expect(events.map((event) => event.type).filter((type) => type === 'subscription.created')).toHaveLength(1);
    expect(events.every((event) => (event.data.object as { id: string }).id === subscription.id)).toBe(true);

    const canceled = await api.POST('/api/v1/subscriptions/{id}/cancel', { params: { path: { id: subscription.id } }, body: { at_period_end: false } });
    expect(canceled.data!.data.status).toBe('canceled');
    const canceledEvents = await waitFor(
      async () => (await api.GET('/api/v1/events', { params: { query: { limit: 100 } } })).data!.data.filter((event) => event.type === 'subscription.canceled'),
      (found) => found.length >= 1,
      'subscription.canceled',
    );
    expect(canceledEvents.map((event) => (event.data.object as { id: string; status: string }))).toMatchObject([{ id: subscription.id, status: 'canceled' }]);
    const listed = await api.GET('/api/v1/subscriptions', { params: { query: { status: 'canceled' } } });
    expect(listed.data!.data.map((each) => each.id)).toEqual([subscription.id]);
  });

  it('needs its scopes: a key with invoices:read only gets 403 on subscriptions', async () => {
    const minted = await system.mintKey(`subscriptions-ro-${randomUUID().slice(0, 8)}`, 'invoices:read');
    const answer = await system.client(minted.key).GET('/api/v1/subscriptions', {});
    expect(answer.response.status).toBe(403);
  });
});
