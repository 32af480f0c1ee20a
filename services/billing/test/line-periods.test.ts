import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

// Line periods (EN 16931 BG-26) and the subscription an invoice was made by.
describe('line periods and subscription invoices', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: { id: string };
  let price: { id: string };
  const subscription = 'sub_0190f3e2c1b27a8e9d1f3c4b5a697887';

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    const seed = catalogSeeder(harness, api.workspaceId);
    customer = await seed.customer();
    await api.call('PATCH', '/api/v1/account', { default_currency: 'EUR' });
    const product = await seed.product();
    price = await seed.price(product.id, { currency: 'EUR' });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('takes a period on ad-hoc and catalog lines, keeps it through finalization, and hashes it', async () => {
    const period = { start: '2026-11-01', end: '2026-11-30' };
    const created = await api.call('POST', '/api/v1/invoices', {
      customer: customer.id,
      items: [
        { description: 'Hosting', unit_amount: 1_000, period },
        { price: price.id, period: { start: '2026-11-15', end: '2026-11-15' } },
        { description: 'Setup', unit_amount: 500 },
      ],
    });
    expect(created.status).toBe(201);
    expect(created.body.data.subscription).toBeNull();
    expect(created.body.data.lines.data.map((line: { period: unknown }) => line.period)).toEqual([period, { start: '2026-11-15', end: '2026-11-15' }, null]);
    const id = created.body.data.id;
    const finalized = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': randomUUID() });
    expect(finalized.status).toBe(200);
    expect(finalized.body.data.lines.data[0].period).toEqual(period);
    // Frozen: the hash covers the periods, and the chain verifies.
    const verified = await api.call('GET', '/api/v1/numbering/verify');
    expect(verified.body.data.verified).toBe(true);
    await harness.sql('update billing.invoice_lines set period_end = ? where invoice_id = ? and position = 0', ['2026-11-29', id.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')]);
    const tampered = await api.call('GET', '/api/v1/numbering/verify');
    expect(tampered.body.data.verified).toBe(false);
  });

  it('refuses a period that ends before it starts, changing nothing', async () => {
    const response = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'Hosting', unit_amount: 1_000, period: { start: '2026-12-01', end: '2026-11-30' } }] });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([expect.objectContaining({ path: 'items.0.period.end' })]);
  });

  it('the internal route ties a keyed draft to its subscription, once per key', async () => {
    const key = `${subscription}/2026-11-01/create`;
    const body = { customer: customer.id, subscription, period_start: '2026-11-01', items: [{ price: price.id, period: { start: '2026-11-01', end: '2026-11-30' } }] };
    const first = await api.call('POST', '/internal/v1/subscription-invoices', body, { 'x-idempotency-key': key });
    const again = await api.call('POST', '/internal/v1/subscription-invoices', body, { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    expect(first.body.data).toMatchObject({ subscription, status: 'draft' });
    expect(again.body.data.id).toBe(first.body.data.id);
    const listed = await api.call('GET', '/api/v1/invoices?limit=100');
    expect(listed.body.data.filter((invoice: { subscription: string | null }) => invoice.subscription === subscription)).toHaveLength(1);
    // A client's own create cannot name a subscription.
    const forged = await api.call('POST', '/api/v1/invoices', body, { 'x-idempotency-key': randomUUID() });
    expect(forged.status).toBe(400);
  });

  // One invoice per subscription and period, kept by billing itself (issue 24), not only by the key's record.
  const periodBody = (sub: string, periodStart: string, periodEnd = '2027-01-31') => ({
    customer: customer.id,
    subscription: sub,
    period_start: periodStart,
    issue_date: periodStart,
    items: [{ price: price.id, period: { start: periodStart, end: periodEnd } }],
  });
  const invoicesOfPeriod = async (sub: string, periodStart: string) =>
    (
      await harness.sql<{ id: string }>(
        `select i.id from billing.invoices i where i.subscription_id = ? and i.subscription_period_start = ?`,
        [sub.replace(/^sub_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'), periodStart],
      )
    ).map((row) => row.id);
  const createdEventsOf = async (invoiceId: string) =>
    harness.sql(`select 1 from billing.outbox where subject = 'billing.invoice.created' and envelope->'data'->'object'->>'id' = ?`, [invoiceId]);

  it('a retry after the key’s record was purged answers the period’s invoice as it is now, and writes nothing', async () => {
    const sub = 'sub_0190f3e2c1b27a8e9d1f3c4b5a697801';
    const key = `${sub}/2027-01-01/create`;
    const first = await api.call('POST', '/internal/v1/subscription-invoices', periodBody(sub, '2027-01-01'), { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    const id = first.body.data.id;
    const finalized = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `${sub}/2027-01-01/finalize` });
    expect(finalized.status).toBe(200);
    // What the purge does once IDEMPOTENCY_TTL_HOURS have passed.
    await harness.sql(`delete from billing.idempotency_records where key = ?`, [key]);
    const numbered = await api.call('GET', '/api/v1/numbering');

    const again = await api.call('POST', '/internal/v1/subscription-invoices', periodBody(sub, '2027-01-01'), { 'x-idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.headers['idempotent-replayed']).toBeUndefined();
    expect(again.body.data).toMatchObject({ id, subscription: sub, status: 'open', number: finalized.body.data.number });
    expect(again.body.data.lines.data).toHaveLength(1);
    expect(await invoicesOfPeriod(sub, '2027-01-01')).toHaveLength(1);
    expect(await createdEventsOf(id)).toHaveLength(1);
    expect((await api.call('GET', '/api/v1/numbering')).body).toEqual(numbered.body);
    // The key's outcome is recorded as usual: the next retry is a replay of it.
    const replayed = await api.call('POST', '/internal/v1/subscription-invoices', periodBody(sub, '2027-01-01'), { 'x-idempotency-key': key });
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(replayed.body.data.id).toBe(id);
    // Another period of the same subscription is a new invoice.
    const next = await api.call('POST', '/internal/v1/subscription-invoices', periodBody(sub, '2027-02-01', '2027-02-28'), { 'x-idempotency-key': `${sub}/2027-02-01/create` });
    expect(next.status).toBe(201);
    expect(next.body.data.id).not.toBe(id);
  });

  it('a period that has its invoice is answered with it even when its request would now be refused (a price archived since)', async () => {
    const seed = catalogSeeder(harness, api.workspaceId);
    const archived = await seed.price((await seed.product()).id, { currency: 'EUR' });
    const sub = 'sub_0190f3e2c1b27a8e9d1f3c4b5a697803';
    const key = `${sub}/2027-01-01/create`;
    const body = { ...periodBody(sub, '2027-01-01'), items: [{ price: archived.id, period: { start: '2027-01-01', end: '2027-01-31' } }] };
    const first = await api.call('POST', '/internal/v1/subscription-invoices', body, { 'x-idempotency-key': key });
    expect(first.status).toBe(201);
    await seed.archivePrice(archived.id);
    await harness.sql(`delete from billing.idempotency_records where key = ?`, [key]);
    const again = await api.call('POST', '/internal/v1/subscription-invoices', body, { 'x-idempotency-key': key });
    expect(again.status).toBe(201);
    expect(again.body.data.id).toBe(first.body.data.id);
    // A period without an invoice is refused as before.
    const next = { ...body, period_start: '2027-02-01', items: [{ price: archived.id, period: { start: '2027-02-01', end: '2027-02-28' } }] };
    expect((await api.call('POST', '/internal/v1/subscription-invoices', next, { 'x-idempotency-key': `${sub}/2027-02-01/create` })).status).toBe(400);
  });

  it('eight concurrent creates of one period under different keys make one invoice, and every answer names it', async () => {
    const sub = 'sub_0190f3e2c1b27a8e9d1f3c4b5a697802';
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.call('POST', '/internal/v1/subscription-invoices', periodBody(sub, '2027-01-01'), { 'x-idempotency-key': randomUUID() })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    const ids = await invoicesOfPeriod(sub, '2027-01-01');
    expect(ids).toHaveLength(1);
    const id = answers[0]!.body.data.id;
    expect(answers.map((answer) => answer.body.data.id)).toEqual(Array(8).fill(id));
    expect(await createdEventsOf(id)).toHaveLength(1);
  });
});
