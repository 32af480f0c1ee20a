import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type TestSystem } from '../support/system.ts';

// A test clock across catalog, billing, subscriptions and notifications, through the gateway with a
// test key: a customer on a clock, a monthly subscription from the clock's time, three months in one
// advance.
let system: TestSystem;
let testKey: string;
let keyId: string;

interface Answer<T = any> {
  status: number;
  body: T;
}

/** One request through the gateway with the workspace's test key (writes with an Idempotency-Key). */
const call = async <T = any>(method: string, path: string, body?: unknown): Promise<Answer<T>> => {
  const response = await fetch(`${system.gatewayUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${testKey}`,
      ...(method === 'GET' ? {} : { 'idempotency-key': randomUUID() }),
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, body: (text ? JSON.parse(text) : undefined) as T };
};

const data = async <T = any>(answer: Promise<Answer>): Promise<T> => {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`${status} ${JSON.stringify(body)}`);
  return body.data as T;
};

const waitFor = async <T>(read: () => Promise<T>, done: (value: T) => boolean, what: string, timeoutMs = 60_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`${what} not within ${timeoutMs} ms: ${JSON.stringify(value).slice(0, 800)}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
};

beforeAll(async () => {
  system = await startSystem({ services: ['catalog', 'billing', 'notifications', 'subscriptions'], ownNats: true, env: { TEST_CLOCK_POLL_MS: '200', MAIL_POLL_MS: '100' } });
  const minted = await system.mintKey(`clocks-${randomUUID().slice(0, 8)}`, 'all', 'test');
  testKey = minted.key;
  keyId = minted.key_id;
}, 120_000);

afterAll(async () => {
  await system?.stop();
});

describe('test clocks across the platform', () => {
  it('three months in one advance: one invoice per period dated by the clock, overdue and reminders once each; deleting the clock deletes its data', async () => {
    const T0 = '2027-01-10T09:00:00.000Z';
    const target = '2027-04-05T09:00:00.000Z';
    await data(call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH', timezone: 'UTC', reminder_days: [0, 3], email_attachments: [], default_currency: 'EUR' }));
    const clock = await data(call('POST', '/api/v1/test_clocks', { frozen_time: T0, name: 'Three months' }));
    expect(clock).toMatchObject({ object: 'test_clock', status: 'ready', frozen_time: T0 });

    expect((await call('POST', '/api/v1/customers', { name: 'Nobody', test_clock: `clock_${'0'.repeat(32)}` })).status).toBe(404);
    const customer = await data(call('POST', '/api/v1/customers', { name: 'Clockwork GmbH', email: 'ap@clockwork.example', test_clock: clock.id }));
    expect(customer.test_clock).toBe(clock.id);
    const product = await data(call('POST', '/api/v1/products', { name: 'Team plan' }));
    const price = await data(call('POST', '/api/v1/prices', { product: product.id, unit_amount: 2_500, currency: 'EUR', tax_rate: 19, type: 'recurring', recurring: { interval: 'month', interval_count: 1 } }));
    const subscription = await data(call('POST', '/api/v1/subscriptions', { customer: customer.id, items: [{ price: price.id }], days_until_due: 7 }));
    // Its start is the clock's day, not today's.
    expect(subscription).toMatchObject({ start_date: '2027-01-10', current_period_start: '2027-01-10' });
    // Its first period is invoiced at once, as in real time, dated by the clock.
    const first = await waitFor(() => data<any[]>(call('GET', `/api/v1/invoices?customer=${customer.id}&limit=100`)), (each) => each.length > 0, 'the first period’s invoice');
    expect(first.map((invoice) => invoice.issue_date)).toEqual(['2027-01-10']);

    const advancing = await data(call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time: target }));
    expect(advancing).toMatchObject({ status: 'advancing', frozen_time: T0 });
    const ready = await waitFor(() => data(call('GET', `/api/v1/test_clocks/${clock.id}`)), (each: any) => each.status === 'ready', 'the clock ready', 120_000);
    expect(ready.frozen_time).toBe(target);

    const invoices = (await data<any[]>(call('GET', `/api/v1/invoices?customer=${customer.id}&limit=100`))).sort((a, b) => a.issue_date.localeCompare(b.issue_date));
    expect(invoices.map((invoice) => [invoice.issue_date, invoice.due_date, invoice.status])).toEqual([
      ['2027-01-10', '2027-01-17', 'overdue'],
      ['2027-02-10', '2027-02-17', 'overdue'],
      ['2027-03-10', '2027-03-17', 'overdue'],
    ]);
    expect(invoices.every((invoice) => invoice.subscription === subscription.id && invoice.number !== null)).toBe(true);
    // The status filter goes by the clock's day as well.
    expect(await data<any[]>(call('GET', `/api/v1/invoices?customer=${customer.id}&status=overdue&limit=100`))).toHaveLength(3);
    expect(await data<any[]>(call('GET', `/api/v1/invoices?customer=${customer.id}&status=open&limit=100`))).toEqual([]);
    // The subscription reads by the clock too: its current period is the one the clock is in.
    expect(await data(call('GET', `/api/v1/subscriptions/${subscription.id}`))).toMatchObject({ current_period_start: '2027-03-10', current_period_end: '2027-04-10' });

    // Events carry the clock's time: the first invoice went overdue on the day after its due date, once.
    const overdue = await waitFor(
      async () => data<any[]>(call('GET', '/api/v1/events?type=invoice.overdue&limit=100')),
      (events) => events.length >= 3,
      'three invoice.overdue events',
    );
    await new Promise((resolve) => setTimeout(resolve, 500));
    const overdueAgain = await data<any[]>(call('GET', '/api/v1/events?type=invoice.overdue&limit=100'));
    expect(overdueAgain).toHaveLength(3);
    const firstOverdue = overdue.filter((event) => event.data.object.id === invoices[0].id);
    expect(firstOverdue.map((event) => event.created)).toEqual(['2027-01-18T09:00:00.000Z']);
    const finalized = await data<any[]>(call('GET', '/api/v1/events?type=invoice.finalized&limit=100'));
    expect(finalized.map((event) => event.created).sort()).toEqual(['2027-01-10T09:00:00.000Z', '2027-02-10T09:00:00.000Z', '2027-03-10T09:00:00.000Z']);

    // Reminders: one per reminder day (due date + 0 and + 3), each queued on its day of the clock.
    for (const invoice of invoices) {
      const reminders = (await data<any[]>(call('GET', `/api/v1/invoices/${invoice.id}/messages?limit=100`))).filter((message) => message.kind === 'reminder');
      const due = invoice.due_date as string;
      const plus3 = new Date(Date.parse(`${due}T09:00:00.000Z`) + 3 * 86_400_000).toISOString();
      expect(reminders.map((message) => message.created).sort(), invoice.id).toEqual([`${due}T09:00:00.000Z`, plus3]);
    }

    expect((await call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time: target })).body).toMatchObject({ status: 400, code: 'invalid_request' });

    expect((await call('DELETE', `/api/v1/test_clocks/${clock.id}`)).status).toBe(204);
    expect((await call('GET', `/api/v1/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await call('GET', `/api/v1/customers/${customer.id}`)).status).toBe(404);
    expect((await call('GET', `/api/v1/subscriptions/${subscription.id}`)).status).toBe(404);
    for (const invoice of invoices) expect((await call('GET', `/api/v1/invoices/${invoice.id}`)).status).toBe(404);
    // What is not on the clock stays.
    expect((await call('GET', `/api/v1/products/${product.id}`)).status).toBe(200);
  }, 240_000);

  it('a live key gets 403 on test clocks through the gateway, and a live space gets 403 from billing itself', async () => {
    const minted = await system.mintKey(`clocks-live-${randomUUID().slice(0, 8)}`, 'all');
    const viaGateway = await fetch(`${system.gatewayUrl}/api/v1/test_clocks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ frozen_time: '2027-01-10T09:00:00.000Z' }),
    });
    expect({ status: viaGateway.status, code: ((await viaGateway.json()) as { code?: string }).code }).toEqual({ status: 403, code: 'forbidden' });
    expect((await fetch(`${system.gatewayUrl}/api/v1/test_clocks`, { headers: { authorization: `Bearer ${minted.key}` } })).status).toBe(403);
    const live = (await fetch(`${system.urls.billing}/api/v1/test_clocks`, {
      method: 'POST',
      headers: { 'x-internal-token': system.internalToken, 'x-workspace-id': randomUUID(), 'x-api-key-id': keyId, 'x-request-id': randomUUID(), 'content-type': 'application/json' },
      body: JSON.stringify({ frozen_time: '2027-01-10T09:00:00.000Z' }),
    })).status;
    expect(live).toBe(403);
  });
});
