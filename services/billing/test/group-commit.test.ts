import { randomUUID } from 'node:crypto';
import { parsePublicId } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillingService } from '../src/service.ts';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';
import { asClients } from './support/as-clients.ts';
import { startCountingProxy } from './support/counting-proxy.ts';

const numbers = (count: number, from = 1) => Array.from({ length: count }, (_, i) => `INV/2026/${String(from + i).padStart(4, '0')}`);

/** The group commit as a replica's /metrics shows it: transactions written, finalizes in them, finalizes waiting now. */
const batchStats = async (service: BillingService) => {
  const text = (await service.app.inject({ method: 'GET', url: '/metrics' })).body;
  const value = (name: string) => Number(new RegExp(`^${name}\\{[^}]*\\} (\\S+)$`, 'm').exec(text)?.[1] ?? Number.NaN);
  return { batches: value('billing_finalize_batch_size_count'), members: value('billing_finalize_batch_size_sum'), waiting: value('billing_finalize_waiting') };
};

const waitFor = async (condition: () => Promise<boolean>, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

describe('finalize with group commit', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness({ env: { DATABASE_POOL_SIZE: '20' } });
  });
  afterAll(async () => {
    await harness?.close();
  });

  /** A workspace with a customer, its drafts made through `service`. */
  const workspace = async (service: BillingService = harness.service) => {
    const api = workspaceClient(service);
    const seed = catalogSeeder(harness, api.workspaceId);
    const customer = (await seed.customer()).id;
    const draft = async (client: WorkspaceClient = api, items: unknown[] = [{ description: 'Seat', unit_amount: 2_500, quantity: 3, tax_rate: 19 }], extra: object = {}) => {
      const response = await client.call('POST', '/api/v1/invoices', { customer, items, ...extra });
      expect(response.status, JSON.stringify(response.body)).toBe(201);
      return response.body.data.id as string;
    };
    const finalize = (client: WorkspaceClient, id: string, key: string | undefined = `fin-${id}`) =>
      client.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, key === undefined ? {} : { 'x-idempotency-key': key });
    const expectIntactSeries = async (issued: number) => {
      expect((await api.call('GET', '/api/v1/numbering')).body.data).toMatchObject({ gap_free: true, series: [{ issued, last_sequence: issued, gaps: [] }] });
      expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true, invoices_checked: issued });
    };
    return { api, seed, customer, draft, finalize, expectIntactSeries };
  };

  /**
   * Holds a row lock from outside, as a long transaction of another replica would: a finalize
   * batch started now waits on it, so the finalizes that follow queue up behind that batch.
   */
  const holdLock = async (sql: string, params: unknown[], beforeRelease: (tx: EntityManager) => Promise<unknown> = async () => {}) => {
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let locked!: () => void;
    const isLocked = new Promise<void>((resolve) => (locked = resolve));
    const holder = harness.service.orm.em.fork().transactional(async (tx) => {
      await tx.execute(sql, params);
      locked();
      await released;
      await beforeRelease(tx);
    });
    await isLocked;
    return async () => {
      release();
      await holder;
    };
  };
  /** The series' counter row; a batch then locks its drafts and waits before taking numbers. */
  const holdCounter = (workspaceId: string) => holdLock('select 1 from billing.number_series where workspace_id = ? for update', [workspaceId]);
  const batchWaits = (statement: string) => async () =>
    (await harness.sql<{ n: string }>(`select count(*) as n from pg_stat_activity where wait_event_type = 'Lock' and query like ? and query not like '%pg_stat_activity%'`, [`%${statement}%`]))[0]!.n !== '0';
  const batchWaitsOnCounter = batchWaits('number_series');
  /**
   * Changes a draft as a PATCH would, in a transaction that locks its row now and commits the
   * change when told: a batch that read the draft before and locks it meanwhile waits, then finds
   * it changed.
   */
  const changeLater = async (invoiceId: string) => {
    const commit = await holdLock('select 1 from billing.invoices where id = ? for update', [invoiceId], (tx) =>
      tx.execute(`update billing.invoices set notes = 'changed behind the batch', updated_at = updated_at + interval '1 millisecond' where id = ?`, [invoiceId]),
    );
    return commit;
  };

  it('batches concurrent finalizes of one series: numbers 1..N without gap or duplicate, an intact chain, fewer transactions than finalizes, one customer read per batch, and keyed answers replayed', async () => {
    const catalog = await startCountingProxy(harness.catalog.url);
    const replica = await harness.start({ env: { CATALOG_URL: catalog.url } });
    const { api, draft, finalize, expectIntactSeries } = await workspace(replica);
    const ids = await asClients(16, Array.from({ length: 300 }), () => draft());
    catalog.reset();

    const responses = await asClients(32, ids, (id) => finalize(api, id));
    const customerReads = catalog.requests().filter((request) => request.startsWith('GET /api/v1/customers/')).length;
    await catalog.close();
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    expect(responses.map((r) => r.body.data.number).sort()).toEqual(numbers(300));
    await expectIntactSeries(300);

    const stats = await batchStats(replica);
    expect(stats.members).toBe(300);
    // Batched for real: on average more than two finalizes share one transaction.
    expect(stats.batches).toBeLessThan(150);
    console.info(`300 finalizes by 32 clients in ${stats.batches} transactions (average batch ${(stats.members / stats.batches).toFixed(1)}), ${customerReads} customer reads`);
    // All drafts name one customer: each batch asks the catalog for it once.
    expect(customerReads).toBe(stats.batches);

    // Each keyed member's response was recorded in its batch's transaction: a repeat replays it byte for byte.
    const repeats = await Promise.all(ids.slice(0, 20).map((id) => finalize(api, id)));
    repeats.forEach((repeat, index) => {
      expect(repeat.headers['idempotent-replayed']).toBe('true');
      expect(repeat.body).toEqual(responses[index]!.body);
    });
    const events = await harness.sql<{ n: string }>(`select count(*) as n from billing.outbox where subject = 'billing.invoice.finalized' and envelope->>'workspace_id' = ?`, [api.workspaceId]);
    expect(Number(events[0]!.n)).toBe(300);
  }, 120_000);

  it('reads its drafts when it starts: changes made while they waited are finalized, a draft emptied meanwhile refused (400); one changed between its read and its lock is read again and finalized afresh', async () => {
    const replica = await harness.start();
    const { api, seed, draft, finalize, expectIntactSeries } = await workspace(replica);
    const product = await seed.product();
    const price = await seed.price(product.id);
    expect((await finalize(api, await draft())).status).toBe(200);
    const [first, plain, patched] = [await draft(), await draft(), await draft()];
    const emptied = await draft(api, [{ price: price.id, quantity: 1 }], { currency: 'EUR' });
    const raced = await draft();

    const release = await holdCounter(api.workspaceId);
    const leading = finalize(api, first);
    await waitFor(batchWaitsOnCounter, 'the first batch to wait on the counter row');
    const queued = [plain, patched, emptied, raced].map((id) => finalize(api, id));
    await waitFor(async () => (await batchStats(replica)).waiting === 4, 'four finalizes waiting for the next batch');
    // Both PATCHes commit while their finalizes wait: one changes the notes, one drops the only (catalog) line.
    expect((await api.call('PATCH', `/api/v1/invoices/${patched}`, { notes: 'changed meanwhile' })).status).toBe(200);
    expect((await api.call('PATCH', `/api/v1/invoices/${emptied}`, { currency: 'USD' })).body.data.lines.data).toEqual([]);
    // `raced` is changed by a transaction that holds its row until the next batch, having read it, waits to lock it.
    const commitChange = await changeLater(parsePublicId('invoice', raced)!);
    const before = await batchStats(replica);
    await release();
    // Once the leader has answered, its batch no longer waits on the counter (pg_stat_activity can
    // show a woken backend as waiting a moment longer): a lock wait now is the next batch's, on `raced`.
    await leading;
    await waitFor(batchWaits('"locked"'), 'the next batch to wait on the changed draft');
    await commitChange();

    const [leader, plainDone, patchedDone, emptiedDone, racedDone] = await Promise.all([leading, ...queued]);
    expect([leader, plainDone, patchedDone, racedDone].map((r) => r!.status)).toEqual([200, 200, 200, 200]);
    expect(patchedDone!.body.data).toMatchObject({ notes: 'changed meanwhile', status: 'open' });
    expect(racedDone!.body.data).toMatchObject({ notes: 'changed behind the batch', status: 'open' });
    expect(emptiedDone).toMatchObject({ status: 400, body: { code: 'invalid_request' } });
    expect((await api.call('GET', `/api/v1/invoices/${emptied}`)).body.data).toMatchObject({ status: 'draft', number: null });
    expect([leader, plainDone, patchedDone, racedDone].map((r) => r!.body.data.number).sort()).toEqual(numbers(4, 2));
    await expectIntactSeries(5);
    // After the leader's batch: the four waiting together, then the raced draft again on its own.
    const after = await batchStats(replica);
    expect({ batches: after.batches - before.batches, members: after.members - before.members }).toEqual({ batches: 2, members: 5 });
  }, 60_000);

  it('two replicas finalizing one series at once: numbers 1..N without gap or duplicate, an intact chain', async () => {
    const [one, two] = [await harness.start(), await harness.start()];
    const { api, draft, finalize, expectIntactSeries } = await workspace(one);
    const other = workspaceClient(two, api.workspaceId, api.keyId);
    const ids = await asClients(16, Array.from({ length: 200 }), () => draft());

    const responses = await asClients(32, ids, (id, index) => finalize(index % 2 === 0 ? api : other, id));
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    expect(responses.map((r) => r.body.data.number).sort()).toEqual(numbers(200));
    await expectIntactSeries(200);
    const [statsOne, statsTwo] = [await batchStats(one), await batchStats(two)];
    expect(statsOne.members + statsTwo.members).toBe(200);
    expect(statsOne.batches + statsTwo.batches).toBeLessThan(200);
  }, 120_000);

  it('FINALIZE_BATCH_MAX=1 writes every finalize in its own transaction, with the same guarantees', async () => {
    const alone = await harness.start({ env: { FINALIZE_BATCH_MAX: '1' } });
    const { api, draft, finalize, expectIntactSeries } = await workspace(alone);
    const ids = await asClients(16, Array.from({ length: 100 }), () => draft());

    const responses = await asClients(32, ids, (id) => finalize(api, id));
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    expect(responses.map((r) => r.body.data.number).sort()).toEqual(numbers(100));
    await expectIntactSeries(100);
    expect(await batchStats(alone)).toMatchObject({ batches: 100, members: 100 });
    // Spec rule 3 unbatched too: concurrent finalizes of one draft take one number, and all answer it.
    const id = await draft();
    const racing = await Promise.all(Array.from({ length: 10 }, (_, i) => finalize(api, id, `race-${i}`)));
    expect(new Set(racing.map((r) => `${r.status} ${r.body.data.number}`))).toEqual(new Set(['200 INV/2026/0101']));
  }, 120_000);

  it('a batch whose transaction fails is retried member by member: the failing one fails alone, the others take the numbers with no gap', async () => {
    const replica = await harness.start();
    const { api, draft, finalize, expectIntactSeries } = await workspace(replica);
    expect((await finalize(api, await draft())).status).toBe(200);
    const [first, before, failing, after] = [await draft(), await draft(), await draft(), await draft()];
    const trigger = `refuse_${randomUUID().replaceAll('-', '')}`;
    const uuid = parsePublicId('invoice', failing);
    // A fault inside the batch's write: PostgreSQL refuses to finalize this one invoice.
    await harness.sql(`create function billing.${trigger}() returns trigger language plpgsql as $$ begin raise exception 'refused by the test'; end $$`);
    await harness.sql(`create trigger ${trigger} before update on billing.invoices for each row when (new.id = '${uuid}' and new.status = 'open') execute function billing.${trigger}()`);
    try {
      const release = await holdCounter(api.workspaceId);
      const leading = finalize(api, first);
      await waitFor(batchWaitsOnCounter, 'the first batch to wait on the counter row');
      const queued = [before, failing, after].map((id) => finalize(api, id));
      await waitFor(async () => (await batchStats(replica)).waiting === 3, 'three finalizes waiting for the next batch');
      const stats = await batchStats(replica);
      await release();
      const [leader, beforeDone, failingDone, afterDone] = await Promise.all([leading, ...queued]);

      expect([leader, beforeDone, afterDone].map((r) => r!.status)).toEqual([200, 200, 200]);
      expect(failingDone!.status).toBe(500);
      expect([leader, beforeDone, afterDone].map((r) => r!.body.data.number).sort()).toEqual(numbers(3, 2));
      expect((await api.call('GET', `/api/v1/invoices/${failing}`)).body.data).toMatchObject({ status: 'draft', number: null });
      await expectIntactSeries(4);
      // The batch of three (rolled back), then each of the three alone.
      const later = await batchStats(replica);
      expect({ batches: later.batches - stats.batches, members: later.members - stats.members }).toEqual({ batches: 4, members: 6 });
    } finally {
      await harness.sql(`drop trigger ${trigger} on billing.invoices`);
      await harness.sql(`drop function billing.${trigger}()`);
    }
    // Once PostgreSQL takes it again, the refused draft takes the next number.
    expect((await finalize(api, failing, `again-${failing}`)).body.data.number).toBe('INV/2026/0005');
  }, 60_000);

  it('a batch hit by a number another format issued gives its numbers back: every member 409, then all finalize under a fitting format', async () => {
    const replica = await harness.start();
    const { api, draft, finalize } = await workspace(replica);
    await api.call('PATCH', '/api/v1/account', { number_format: 'X{SEQ:2}' });
    expect((await finalize(api, await draft())).body.data.number).toBe('X01');
    await api.call('PATCH', '/api/v1/account', { number_format: 'X0{SEQ:1}' });
    const ids = [await draft(), await draft(), await draft()];
    // The new series has no counter row yet: the first batch is held at its draft's lock instead.
    const release = await holdLock('select 1 from billing.invoices where id = ? for update', [parsePublicId('invoice', ids[0]!)]);
    const leading = finalize(api, ids[0]!);
    await waitFor(batchWaits('for update of "i"'), 'the first batch to wait on its draft');
    const queued = ids.slice(1).map((id) => finalize(api, id));
    await waitFor(async () => (await batchStats(replica)).waiting === 2, 'two finalizes waiting for the next batch');
    await release();
    const answers = await Promise.all([leading, ...queued]);
    expect(answers.map((r) => `${r.status} ${r.body.code}`)).toEqual(Array(3).fill('409 invalid_state'));
    // Nothing consumed: the clashing series has no counter row at all.
    expect(await harness.sql(`select last_value from billing.number_series where workspace_id = ? and format = 'X0{SEQ:1}'`, [api.workspaceId])).toEqual([]);

    await api.call('PATCH', '/api/v1/account', { number_format: 'Y{SEQ:2}' });
    const retried = await Promise.all(ids.map((id) => finalize(api, id, `retry-${id}`)));
    expect(retried.map((r) => r.body.data.number).sort()).toEqual(['Y01', 'Y02', 'Y03']);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
  }, 60_000);
});
