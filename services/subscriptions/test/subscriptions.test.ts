import { createServiceClient } from '@invoicing/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvoiceScheduler } from '../src/modules/subscriptions/invoice-scheduler.ts';
import { subscriptionRepository } from '../src/modules/subscriptions/subscription.repository.ts';
import { billingClient, type BillingClient } from '../src/shared/upstreams.ts';
import { INTERNAL_TOKEN, startSubscriptionsHarness, workspaceOf, type SubscriptionsHarness } from './support/harness.ts';

let harness: SubscriptionsHarness;

beforeAll(async () => {
  harness = await startSubscriptionsHarness('2027-04-15T10:00:00.000Z');
}, 120_000);

afterAll(async () => {
  await harness?.close();
});

const runScheduler = async (service = harness.service) => {
  while (await service.scheduler.runOnce());
};

describe('subscriptions', () => {
  it('invoices every period from a start date in the past, once each, with line periods anchored on the start day', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    const created = await ws.create({ customer: customer.id, items: [{ price: price.id, quantity: 2 }], start_date: '2027-01-31', days_until_due: 14, metadata: { plan: 'pro' } });
    expect(created.body).toMatchObject({ data: {} });
    expect(created.status).toBe(201);
    const subscription = created.body.data;
    expect(subscription).toMatchObject({
      object: 'subscription',
      livemode: true,
      status: 'active',
      currency: 'EUR',
      interval: 'month',
      interval_count: 1,
      start_date: '2027-01-31',
      current_period_start: '2027-03-31',
      current_period_end: '2027-04-30',
      invoice_behavior: 'finalize',
      metadata: { plan: 'pro' },
    });
    expect(subscription.id).toMatch(/^sub_[0-9a-f]{32}$/);
    expect(subscription.items.data[0]).toMatchObject({ object: 'subscription_item', livemode: true, price: price.id, quantity: 2 });

    await runScheduler();
    // Two replicas looking again find nothing more to do.
    const replica = await harness.replica();
    await Promise.all([runScheduler(), runScheduler(replica)]);

    const invoices = (await ws.invoices()).filter((invoice) => invoice.subscription === subscription.id);
    expect(invoices.map((invoice) => [invoice.issue_date, invoice.status, invoice.lines.data[0]!.period, invoice.due_date])).toEqual([
      ['2027-01-31', 'open', { start: '2027-01-31', end: '2027-02-27' }, '2027-02-14'],
      ['2027-02-28', 'open', { start: '2027-02-28', end: '2027-03-30' }, '2027-03-14'],
      ['2027-03-31', 'open', { start: '2027-03-31', end: '2027-04-29' }, '2027-04-14'],
    ]);
    expect(invoices.every((invoice) => invoice.lines.data[0]!.quantity === 2 && invoice.lines.data[0]!.price === price.id)).toBe(true);
    expect(new Set(invoices.map((invoice) => invoice.number)).size).toBe(3);
  });

  const uuidOf = (publicId: string) => publicId.slice(publicId.indexOf('_') + 1).replace(/(.{8})(.{4})(.{4})(.{4})(.{12})/, '$1-$2-$3-$4-$5');

  it.each([
    ['a retry after a crash between billing’s answer and the record of the period makes no second invoice', false],
    ['the same crash, retried after billing purged the keys’ records (IDEMPOTENCY_TTL_HOURS later), still makes no second invoice', true],
  ])('%s', async (_title, purgeKeys) => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    const { body } = await ws.create({ customer: customer.id, items: [{ price: price.id }], start_date: '2027-03-01' });
    await runScheduler();
    const before = await ws.invoices();
    expect(before).toHaveLength(2);
    // As if the service died after billing made both invoices and before it recorded them: the
    // subscription stands at its first period again, its stored requests kept.
    const uuid = uuidOf(body.data.id);
    await harness.sql("update subscriptions.subscriptions set periods_invoiced = 0, next_action_at = '2027-03-01T00:00:00Z' where id = ?", [uuid]);
    await harness.sql('update subscriptions.subscription_periods set invoice_id = null where subscription_id = ?', [uuid]);
    if (purgeKeys) {
      // What billing's purge does once the records have outlived their time to live: only its own
      // one invoice per subscription and period is left to refuse a second.
      const purged = await harness.sql('delete from billing.idempotency_records where key like ? returning key', [`${body.data.id}/%`]);
      expect(purged).toHaveLength(4);
    }
    await runScheduler();
    const after = await ws.invoices();
    expect(after.map((invoice) => [invoice.id, invoice.number, invoice.status])).toEqual(before.map((invoice) => [invoice.id, invoice.number, 'open']));
    const periods = await harness.sql<{ invoice_id: string }>('select invoice_id from subscriptions.subscription_periods where subscription_id = ? order by period_start', [uuid]);
    expect(periods.map((row) => row.invoice_id).sort()).toEqual(before.map((invoice) => uuidOf(invoice.id)).sort());
  });

  it('an item change applies from the next period; a draft behaviour leaves drafts; cancel at period end stops there', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    const other = await ws.seed.price({ unit_amount: 9_900 });
    const { body } = await ws.create({ customer: customer.id, items: [{ price: price.id }], invoice_behavior: 'draft' });
    const id = body.data.id;
    expect(body.data).toMatchObject({ start_date: '2027-04-15', current_period_start: '2027-04-15', current_period_end: '2027-05-15' });
    await runScheduler();
    const patched = await ws.call('PATCH', `/api/v1/subscriptions/${id}`, { items: [{ price: other.id, quantity: 3 }], metadata: { team: 'a' } });
    expect(patched.status).toBe(200);
    expect(patched.body.data.items.data).toMatchObject([{ price: other.id, quantity: 3 }]);
    const canceling = await ws.call('POST', `/api/v1/subscriptions/${id}/cancel`, { at_period_end: true });
    expect(canceling.body.data).toMatchObject({ status: 'active', cancel_at: '2027-05-15' });
    // Extend it again by one period: cancel at 15 June.
    expect((await ws.call('PATCH', `/api/v1/subscriptions/${id}`, { cancel_at: '2027-06-15' })).status).toBe(200);

    harness.clock.set('2027-05-20T10:00:00.000Z');
    await runScheduler();
    harness.clock.set('2027-06-16T10:00:00.000Z');
    await runScheduler();
    const invoices = await ws.invoices();
    expect(invoices.map((invoice) => [invoice.status, invoice.lines.data[0]!.price, invoice.lines.data[0]!.quantity, invoice.lines.data[0]!.period])).toEqual([
      ['draft', price.id, 1, { start: '2027-04-15', end: '2027-05-14' }],
      ['draft', other.id, 3, { start: '2027-05-15', end: '2027-06-14' }],
    ]);
    const final = await ws.call('GET', `/api/v1/subscriptions/${id}`);
    expect(final.body.data).toMatchObject({ status: 'canceled', canceled_at: '2027-06-15T00:00:00.000Z', metadata: { team: 'a' } });
    expect((await ws.call('PATCH', `/api/v1/subscriptions/${id}`, { days_until_due: 3 })).status).toBe(409);
    harness.clock.set('2027-04-15T10:00:00.000Z');
    // created; period 1 invoiced; PATCH of items; cancel at period end; PATCH of cancel_at; period 2 invoiced; cancel_at came.
    const events = await harness.sql<{ subject: string }>("select subject from subscriptions.outbox where envelope->>'workspace_id' = ? order by created_at", [ws.workspaceId]);
    expect(events.map((event) => event.subject.replace('subscriptions.subscription.', ''))).toEqual(['created', 'updated', 'updated', 'updated', 'updated', 'updated', 'canceled']);
  });

  it('a change made while billing writes a period’s invoice counts at once: a cancel_at of today stops the periods still due', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    // Three periods are due (15 February, March and April); the scheduler is behind.
    const { body } = await ws.create({ customer: customer.id, items: [{ price: price.id }], start_date: '2027-02-15' });
    const id = body.data.id;
    const http = createServiceClient({ baseUrl: harness.billing.url, name: 'billing', internalToken: INTERNAL_TOKEN, timeoutMs: 10_000 });
    const real = billingClient(http);
    let patched: number | undefined;
    // The real billing; the client PATCHes the subscription once, between billing's answer for the first period and the record of it.
    const billing: BillingClient = {
      ...real,
      createInvoice: async (...args) => {
        const answer = await real.createInvoice(...args);
        patched ??= (await ws.call('PATCH', `/api/v1/subscriptions/${id}`, { cancel_at: '2027-04-15', metadata: { note: 'leaving' } })).status;
        return answer;
      },
    };
    const scheduler = new InvoiceScheduler({
      orm: harness.service.orm,
      clock: harness.clock,
      billing,
      intervalMs: 3_600_000,
      concurrency: 1,
      leaseMs: 60_000,
      announce: () => {},
      onError: () => {},
      onRefused: () => {},
    });
    try {
      while (await scheduler.runOnce());
    } finally {
      await http.close();
    }
    expect(patched).toBe(200);
    // The period of 15 April starts on cancel_at: no invoice for it.
    expect((await ws.invoices()).map((invoice) => invoice.lines.data[0]!.period!.start)).toEqual(['2027-02-15', '2027-03-15']);
    expect((await ws.call('GET', `/api/v1/subscriptions/${id}`)).body.data).toMatchObject({ status: 'canceled', cancel_at: '2027-04-15', canceled_at: '2027-04-15T00:00:00.000Z' });
    // The first period's event, recorded after the PATCH, shows the subscription as it then was.
    const events = await harness.sql<{ subject: string; object: { cancel_at: string | null; metadata: Record<string, string> } }>(
      "select subject, envelope->'data'->'object' as object from subscriptions.outbox where envelope->>'workspace_id' = ? order by created_at",
      [ws.workspaceId],
    );
    expect(events.map((event) => event.subject.replace('subscriptions.subscription.', ''))).toEqual(['created', 'updated', 'updated', 'updated', 'canceled']);
    expect(events.slice(2).map((event) => [event.object.cancel_at, event.object.metadata])).toEqual(Array.from({ length: 3 }, () => ['2027-04-15', { note: 'leaving' }]));
  });

  it('cancel now makes no further invoice, and events follow every change', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    const { body } = await ws.create({ customer: customer.id, items: [{ price: price.id }], start_date: '2027-05-01' });
    const canceled = await ws.call('POST', `/api/v1/subscriptions/${body.data.id}/cancel`);
    expect(canceled.body.data.status).toBe('canceled');
    harness.clock.set('2027-06-15T10:00:00.000Z');
    await runScheduler();
    harness.clock.set('2027-04-15T10:00:00.000Z');
    expect(await ws.invoices()).toHaveLength(0);
    const events = await harness.sql<{ subject: string }>("select subject from subscriptions.outbox where envelope->>'workspace_id' = ? order by created_at", [ws.workspaceId]);
    expect(events.map((event) => event.subject)).toEqual(['subscriptions.subscription.created', 'subscriptions.subscription.canceled']);
  });

  it('periods begin at midnight in the workspace’s time zone (billing’s account), not in UTC', async () => {
    // Kiritimati is UTC+14: at 10:00 UTC on 15 April it is already 16 April there.
    const ws = workspaceOf(harness);
    expect((await harness.billing.call('PATCH', '/api/v1/account', ws.workspaceId, { timezone: 'Pacific/Kiritimati' })).status).toBe(200);
    const utc = workspaceOf(harness);
    const [customer, price, utcCustomer, utcPrice] = [await ws.seed.customer(), await ws.seed.price(), await utc.seed.customer(), await utc.seed.price()];
    const { body } = await ws.create({ customer: customer.id, items: [{ price: price.id }] });
    expect(body.data).toMatchObject({ start_date: '2027-04-16', current_period_start: '2027-04-16', current_period_end: '2027-05-16' });
    // The same start date in a UTC workspace has not begun yet.
    expect((await utc.create({ customer: utcCustomer.id, items: [{ price: utcPrice.id }], start_date: '2027-04-16' })).status).toBe(201);
    try {
      await runScheduler();
      const periodsOf = async (of: typeof ws) => (await of.invoices()).map((invoice) => invoice.lines.data[0]!.period);
      expect(await periodsOf(ws)).toEqual([{ start: '2027-04-16', end: '2027-05-15' }]);
      expect(await periodsOf(utc)).toEqual([]);
      // The second period begins at 16 May 00:00 in Kiritimati, 15 May 10:00 UTC: not a second before.
      harness.clock.set('2027-05-15T09:59:59.000Z');
      await runScheduler();
      expect(await periodsOf(ws)).toHaveLength(1);
      harness.clock.set('2027-05-15T10:00:00.000Z');
      await runScheduler();
      expect(await periodsOf(ws)).toEqual([
        { start: '2027-04-16', end: '2027-05-15' },
        { start: '2027-05-16', end: '2027-06-15' },
      ]);
      expect(await periodsOf(utc)).toEqual([{ start: '2027-04-16', end: '2027-05-15' }]);
    } finally {
      harness.clock.set('2027-04-15T10:00:00.000Z');
    }
  });

  it('replicas claim due subscriptions apart; a dead replica’s claims hold the others off until its lease ends', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const price = await ws.seed.price();
    for (let n = 0; n < 6; n += 1) expect((await ws.create({ customer: customer.id, items: [{ price: price.id }], start_date: '2027-04-01' })).status).toBe(201);
    const replica = await harness.replica();
    const mine = (rows: { id: string; workspaceId: string }[]) => rows.filter((row) => row.workspaceId === ws.workspaceId).map((row) => row.id);
    const claim = (service: typeof replica, at: Date) => subscriptionRepository(service.orm.em.fork()).claimDue({ dueBy: at, now: at, leaseMs: 60_000 });
    const now = harness.clock.now();
    // Two replicas claiming at the same moment share the due subscriptions without overlap.
    const [first, second] = await Promise.all([claim(harness.service, now), claim(replica, now)]);
    expect([...mine(first), ...mine(second)]).toHaveLength(6);
    expect(new Set([...mine(first), ...mine(second)]).size).toBe(6);
    // Both replicas die holding their claims: nobody invoices those subscriptions while the leases last.
    expect(mine(await claim(replica, new Date(now.getTime() + 59_000)))).toEqual([]);
    harness.clock.set(new Date(now.getTime() + 59_000).toISOString());
    try {
      await runScheduler(replica);
      expect(await ws.invoices()).toEqual([]);
      // Once the leases have ended, a live replica takes them over and invoices each period once.
      harness.clock.set(new Date(now.getTime() + 61_000).toISOString());
      await Promise.all([runScheduler(), runScheduler(replica)]);
      const invoices = await ws.invoices();
      expect(invoices.map((invoice) => invoice.lines.data[0]!.period)).toEqual(Array.from({ length: 6 }, () => ({ start: '2027-04-01', end: '2027-04-30' })));
      expect(new Set(invoices.map((invoice) => invoice.subscription)).size).toBe(6);
    } finally {
      harness.clock.set('2027-04-15T10:00:00.000Z');
    }
  });

  it('refuses prices that are not recurring, archived, in another currency or on another interval, and unknown references', async () => {
    const ws = workspaceOf(harness);
    const customer = await ws.seed.customer();
    const monthly = await ws.seed.price();
    const oneTime = await ws.seed.price({ type: 'one_time', recurring: null });
    const usd = await ws.seed.price({ currency: 'USD' });
    const yearly = await ws.seed.price({ recurring: { interval: 'year', interval_count: 1 } });
    const refused = await ws.create({ customer: customer.id, items: [{ price: monthly.id }, { price: oneTime.id }, { price: usd.id }, { price: yearly.id }] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual(['items.1.price', 'items.2.price', 'items.3.price']);
    const unknownPrice = await ws.create({ customer: customer.id, items: [{ price: 'price_0190f3e2c1b27a8e9d1f3c4b5a697887' }] });
    expect(unknownPrice.status).toBe(404);
    const unknownCustomer = await ws.create({ customer: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887', items: [{ price: monthly.id }] });
    expect(unknownCustomer.status).toBe(404);
    const badCancel = await ws.create({ customer: customer.id, items: [{ price: monthly.id }], start_date: '2027-05-01', cancel_at: '2027-05-01' });
    expect(badCancel.status).toBe(400);
    expect((await ws.call('GET', '/api/v1/subscriptions')).body.data).toEqual([]);
  });

  it('lists newest first with customer and status filters and a cursor; another workspace sees none', async () => {
    const ws = workspaceOf(harness);
    const [alice, bob] = [await ws.seed.customer(), await ws.seed.customer()];
    const price = await ws.seed.price();
    const ids: string[] = [];
    for (const customer of [alice, bob, alice]) ids.push((await ws.create({ customer: customer.id, items: [{ price: price.id }], start_date: '2027-06-01' })).body.data.id);
    await ws.call('POST', `/api/v1/subscriptions/${ids[0]}/cancel`);
    const first = await ws.call('GET', '/api/v1/subscriptions?limit=2');
    expect(first.body.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[1]]);
    const second = await ws.call('GET', `/api/v1/subscriptions?limit=2&cursor=${first.body.next_cursor}`);
    expect(second.body.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    expect(second.body.next_cursor).toBeNull();
    expect((await ws.call('GET', `/api/v1/subscriptions?customer=${alice.id}`)).body.data.map((s: { id: string }) => s.id)).toEqual([ids[2], ids[0]]);
    expect((await ws.call('GET', '/api/v1/subscriptions?status=canceled')).body.data.map((s: { id: string }) => s.id)).toEqual([ids[0]]);
    const stranger = workspaceOf(harness);
    expect((await stranger.call('GET', `/api/v1/subscriptions/${ids[1]}`)).status).toBe(404);
    expect((await stranger.call('GET', '/api/v1/subscriptions')).body.data).toEqual([]);
  });
});
