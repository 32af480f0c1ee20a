import { randomUUID } from 'node:crypto';
import { parsePublicId } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

/**
 * The gateway records the outcome of a keyed write only after the service answered; if it dies
 * in between (or loses the answer), the client's retry reaches billing again under the same key.
 * These requests are what the gateway forwards then: billing must answer the original response
 * and change nothing.
 */
describe('writes under an Idempotency-Key, repeated at billing', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: string;

  const keyed = (key: string) => ({ 'x-idempotency-key': key });
  const createBody = () => ({ customer, items: [{ description: 'Audit', unit_amount: 10_000, quantity: 2, tax_rate: 19 }] });
  const outboxOf = (invoiceId: string, type: string) =>
    harness.sql<{ n: string }>(`select count(*) as n from billing.outbox where subject = ? and envelope->'data'->'object'->>'id' = ?`, [type, invoiceId]).then(([row]) => Number(row!.n));
  const invoiceCount = () =>
    harness.sql<{ n: string }>('select count(*) as n from billing.invoices where workspace_id = ?', [api.workspaceId]).then(([row]) => Number(row!.n));

  beforeAll(async () => {
    harness = await startBillingHarness({ env: { DATABASE_POOL_SIZE: '20' } });
    api = workspaceClient(harness.service);
    customer = (await catalogSeeder(harness, api.workspaceId).customer()).id;
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('a repeated create answers the first response byte for byte and makes no second invoice or event', async () => {
    const key = randomUUID();
    const before = await invoiceCount();
    const first = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));
    const repeat = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));

    expect(first.status).toBe(201);
    expect(repeat.status).toBe(201);
    expect(repeat.body).toEqual(first.body);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(await invoiceCount()).toBe(before + 1);
    expect(await outboxOf(first.body.data.id, 'billing.invoice.created')).toBe(1);
  });

  it('ten copies of one pay arriving at once make one payment and one invoice.paid event, and all answer alike', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()));
    const id = draft.body.data.id as string;
    expect((await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(randomUUID()))).status).toBe(200);

    const key = randomUUID();
    const copies = await Promise.all(Array.from({ length: 10 }, () => api.call('POST', `/api/v1/invoices/${id}/pay`, { payment_reference: 'wire 42' }, keyed(key))));

    expect(copies.map((copy) => copy.status)).toEqual(Array(10).fill(200));
    for (const copy of copies) expect(copy.body).toEqual(copies[0]!.body);
    expect(copies.filter((copy) => copy.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await outboxOf(id, 'billing.invoice.paid')).toBe(1);
    const timeline = await harness.sql<{ n: string }>(`select count(*) as n from billing.invoice_timeline where invoice_id = ? and type = 'paid'`, [parsePublicId('invoice', id)]);
    expect(Number(timeline[0]!.n)).toBe(1);
  });

  it('ten copies of one finalize take one number', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()));
    const id = draft.body.data.id as string;
    const key = randomUUID();
    const copies = await Promise.all(Array.from({ length: 10 }, () => api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(key))));

    expect(new Set(copies.map((copy) => copy.body.data.number)).size).toBe(1);
    expect(await outboxOf(id, 'billing.invoice.finalized')).toBe(1);
    const report = (await api.call('GET', '/api/v1/numbering/verify')).body.data;
    expect(report).toMatchObject({ verified: true });
  });

  it('keeps an error the operation answered: a pay refused on a draft stays refused under its key after the draft is finalized', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()));
    const id = draft.body.data.id as string;
    const key = randomUUID();
    const refused = await api.call('POST', `/api/v1/invoices/${id}/pay`, undefined, keyed(key));
    await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(randomUUID()));
    const repeat = await api.call('POST', `/api/v1/invoices/${id}/pay`, undefined, keyed(key));

    expect(refused.status).toBe(409);
    expect(refused.body.code).toBe('invalid_state');
    expect(repeat.status).toBe(409);
    expect(repeat.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(repeat.body).toEqual(refused.body);
    expect((await api.call('GET', `/api/v1/invoices/${id}`)).body.data.status).toBe('open');
  });

  it('does not keep a 400, so the corrected request runs under the same key', async () => {
    const key = randomUUID();
    const invalid = await api.call('POST', '/api/v1/invoices', { customer, items: [{ description: 'x', unit_amount: -1 }] }, keyed(key));
    const corrected = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));

    expect(invalid.status).toBe(400);
    expect(corrected.status).toBe(201);
  });

  it('refuses the same key with another body (409 idempotency_key_reused) and changes nothing', async () => {
    const key = randomUUID();
    await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));
    const before = await invoiceCount();
    const other = await api.call('POST', '/api/v1/invoices', { ...createBody(), notes: 'another request' }, keyed(key));

    expect(other.status).toBe(409);
    expect(other.body.code).toBe('idempotency_key_reused');
    expect(await invoiceCount()).toBe(before);
  });

  it('keeps keys apart per workspace', async () => {
    const other = workspaceClient(harness.service);
    const otherCustomer = (await catalogSeeder(harness, other.workspaceId).customer()).id;
    const key = randomUUID();
    const mine = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));
    const theirs = await other.call('POST', '/api/v1/invoices', { ...createBody(), customer: otherCustomer }, keyed(key));

    expect(theirs.status).toBe(201);
    expect(theirs.body.data.id).not.toBe(mine.body.data.id);
  });

  it('finalize records its response in the transaction that writes it: a record that fails takes the number and the event back with it', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()));
    const id = draft.body.data.id as string;
    const counter = () =>
      harness.sql<{ last_value: string }>('select last_value from billing.number_series where workspace_id = ?', [api.workspaceId]).then((rows) => rows.map((row) => Number(row.last_value)));
    const before = await counter();
    const key = randomUUID();
    await harness.sql(`alter table billing.idempotency_records add constraint refuse_finalize_key check (key <> '${key}')`);
    const failed = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(key));
    await harness.sql('alter table billing.idempotency_records drop constraint refuse_finalize_key');
    expect(failed.status).toBe(500);
    expect((await api.call('GET', `/api/v1/invoices/${id}`)).body.data).toMatchObject({ status: 'draft', number: null });
    expect(await counter()).toEqual(before);
    expect(await outboxOf(id, 'billing.invoice.finalized')).toBe(0);

    const retried = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(key));
    expect(retried.status).toBe(200);
    const repeat = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(key));
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.body).toEqual(retried.body);
    expect(await outboxOf(id, 'billing.invoice.finalized')).toBe(1);
  });

  it('pay and void record their response in the statement that writes them: a record that fails takes the change and its event back with it', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()));
    const id = draft.body.data.id as string;
    expect((await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed(randomUUID()))).status).toBe(200);
    for (const [action, event] of [
      ['pay', 'billing.invoice.paid'],
      ['void', 'billing.invoice.voided'],
    ] as const) {
      const key = randomUUID();
      await harness.sql(`alter table billing.idempotency_records add constraint refuse_change_key check (key <> '${key}')`);
      const failed = await api.call('POST', `/api/v1/invoices/${id}/${action}`, {}, keyed(key));
      await harness.sql('alter table billing.idempotency_records drop constraint refuse_change_key');
      expect(failed.status).toBe(500);
      expect((await api.call('GET', `/api/v1/invoices/${id}`)).body.data).toMatchObject({ status: 'open' });
      expect(await outboxOf(id, event)).toBe(0);
    }

    const key = randomUUID();
    const paid = await api.call('POST', `/api/v1/invoices/${id}/pay`, {}, keyed(key));
    expect(paid.status).toBe(200);
    const repeat = await api.call('POST', `/api/v1/invoices/${id}/pay`, {}, keyed(key));
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect(repeat.body).toEqual(paid.body);
    expect(await outboxOf(id, 'billing.invoice.paid')).toBe(1);

    // The key holds that answer: a pay of another open invoice under it changes nothing.
    const other = (await api.call('POST', '/api/v1/invoices', createBody(), keyed(randomUUID()))).body.data.id as string;
    expect((await api.call('POST', `/api/v1/invoices/${other}/finalize`, undefined, keyed(randomUUID()))).status).toBe(200);
    const reused = await api.call('POST', `/api/v1/invoices/${other}/pay`, {}, keyed(key));
    expect(reused).toMatchObject({ status: 409, body: { code: 'idempotency_key_reused' } });
    expect((await api.call('GET', `/api/v1/invoices/${other}`)).body.data).toMatchObject({ status: 'open' });
    expect(await outboxOf(other, 'billing.invoice.paid')).toBe(0);
  });

  it('rolls the write back with its record when the transaction fails, so the retry runs anew', async () => {
    const key = randomUUID();
    const before = await invoiceCount();
    // The record's insert fails inside the write's transaction: the invoice must go with it.
    await harness.sql('alter table billing.idempotency_records add constraint refuse_this_key check (key <> ?)'.replace('?', `'${key}'`));
    const failed = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));
    await harness.sql('alter table billing.idempotency_records drop constraint refuse_this_key');
    expect(failed.status).toBe(500);
    expect(await invoiceCount()).toBe(before);

    const retried = await api.call('POST', '/api/v1/invoices', createBody(), keyed(key));
    expect(retried.status).toBe(201);
    expect(await invoiceCount()).toBe(before + 1);
  });
});

describe('keyed writes in a burst larger than the database pool', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness({ env: { DATABASE_POOL_SIZE: '2' } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('all commit: a keyed write reads inside its own transaction and never waits for a second connection', async () => {
    const api = workspaceClient(harness.service);
    const customer = (await catalogSeeder(harness, api.workspaceId).customer()).id;
    const started = performance.now();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => api.call('POST', '/api/v1/invoices', { customer, items: [{ description: 'Audit', unit_amount: 10_000 }] }, { 'x-idempotency-key': randomUUID() })),
    );
    expect(answers.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    // A deadlock on the pool would end only with its 10 s wait for a connection (a 503).
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
