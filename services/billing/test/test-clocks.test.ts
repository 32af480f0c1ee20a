import { randomUUID } from 'node:crypto';
import { dataSpaceOf } from '@invoicing/service-kit/data-space';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestClockAdvancer } from '../src/modules/test-clocks/test-clock-advancer.ts';
import type { BillingService } from '../src/service.ts';
import { CatalogProcess } from './support/catalog-process.ts';
import { INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

const T0 = '2027-01-10T09:00:00.000Z';

/** The test data space of a workspace, typed as the harness takes workspace ids. */
const testSpaceOf = (workspace: string) => dataSpaceOf(workspace, 'test') as ReturnType<typeof randomUUID>;

// Test clocks on billing with the real catalog and subscriptions beside it (a clock's run and its
// deletion reach both): the API's rules, and the stepper that moves a clock.
describe('test clocks', () => {
  let harness: BillingHarness;
  let subscriptions: CatalogProcess;
  let billing: BillingService;
  let api: WorkspaceClient;
  let live: WorkspaceClient;

  const waitUntilReady = async (id: string) => {
    for (let attempt = 0; attempt < 600; attempt += 1) {
      const clock = (await api.call('GET', `/api/v1/test_clocks/${id}`)).body.data;
      if (clock.status === 'ready') return clock;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('the clock stayed advancing');
  };

  beforeAll(async () => {
    // The harness's own billing never looks for advancing clocks on its own: the replica below steps them.
    harness = await startBillingHarness({ env: { TEST_CLOCK_POLL_MS: '3600000' } });
    subscriptions = await CatalogProcess.launch(harness.database.url, INTERNAL_TOKEN, { service: 'subscriptions', env: { CATALOG_URL: harness.catalog.url } });
    billing = await harness.start({ env: { SUBSCRIPTIONS_URL: subscriptions.url, TEST_CLOCK_POLL_MS: '3600000' } });
    const workspace = randomUUID();
    api = workspaceClient(billing, testSpaceOf(workspace));
    live = workspaceClient(billing, workspace);
  }, 120_000);
  afterAll(async () => {
    await subscriptions?.stop();
    await harness?.close();
  });

  it('creates, retrieves and lists clocks of a test space, newest first', async () => {
    const created = await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0, name: 'Monthly plan' });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ object: 'test_clock', name: 'Monthly plan', frozen_time: T0, status: 'ready' });
    expect(created.body.data.id).toMatch(/^clock_[0-9a-f]{32}$/);
    const second = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    expect(second.name).toBeNull();
    expect((await api.call('GET', `/api/v1/test_clocks/${created.body.data.id}`)).body.data).toEqual(created.body.data);
    const page = await api.call('GET', '/api/v1/test_clocks?limit=1');
    expect(page.body.data.map((clock: { id: string }) => clock.id)).toEqual([second.id]);
    expect((await api.call('GET', `/api/v1/test_clocks?limit=1&cursor=${page.body.next_cursor}`)).body.data.map((clock: { id: string }) => clock.id)).toEqual([created.body.data.id]);
  });

  it('refuses a live space (403), a bad body (400) and an unknown id (404), changing nothing', async () => {
    expect((await live.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body).toMatchObject({ status: 403, code: 'forbidden' });
    expect((await live.call('GET', '/api/v1/test_clocks')).status).toBe(403);
    for (const body of [{}, { frozen_time: 'tomorrow' }, { frozen_time: T0, name: '' }, { frozen_time: T0, extra: 1 }]) {
      expect((await api.call('POST', '/api/v1/test_clocks', body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await api.call('GET', `/api/v1/test_clocks/clock_${'0'.repeat(32)}`)).body).toMatchObject({ status: 404, code: 'not_found' });
    expect((await api.call('GET', '/api/v1/test_clocks/nothing')).status).toBe(404);
    const other = workspaceClient(billing, testSpaceOf(randomUUID()));
    const mine = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    expect((await other.call('GET', `/api/v1/test_clocks/${mine.id}`)).status).toBe(404);
  });

  it('advances only forward and one advance at a time; the stepper brings the clock to the target, ready', async () => {
    const clock = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    for (const frozen_time of [T0, '2027-01-01T00:00:00.000Z']) {
      expect((await api.call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time })).body).toMatchObject({ status: 400, code: 'invalid_request' });
    }
    expect((await api.call('GET', `/api/v1/test_clocks/${clock.id}`)).body.data).toMatchObject({ status: 'ready', frozen_time: T0 });
    const target = '2027-01-13T17:00:00.000Z';
    const advancing = await api.call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time: target });
    expect(advancing.status).toBe(200);
    expect(advancing.body.data).toMatchObject({ status: 'advancing', frozen_time: T0 });
    expect((await api.call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time: '2027-02-01T00:00:00.000Z' })).body).toMatchObject({ status: 409, code: 'invalid_state' });
    expect((await api.call('DELETE', `/api/v1/test_clocks/${clock.id}`)).body).toMatchObject({ status: 409, code: 'invalid_state' });
    expect(await waitUntilReady(clock.id)).toMatchObject({ status: 'ready', frozen_time: target });
    expect((await api.call('POST', `/api/v1/test_clocks/${clock.id}/advance`, { frozen_time: target })).status).toBe(400);
  });

  it('runs the rules at every step in order, once per step; after a failed step it goes on from the time committed', async () => {
    const clock = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    const id = clock.id.replace('clock_', '').replace(/^(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    await harness.sql(`update billing.test_clocks set status = 'advancing', advance_to = '2027-01-12T21:00:00.000Z' where id = ?`, [id]);
    const ran: string[] = [];
    let failOnce = true;
    const sut = new TestClockAdvancer({
      orm: billing.orm,
      rules: {
        runSubscriptions: async (_actor, clockId, at) => {
          expect(clockId).toBe(id);
          if (at.toISOString() === '2027-01-12T09:00:00.000Z' && failOnce) {
            failOnce = false;
            throw new Error('subscriptions did not answer');
          }
          ran.push(`subscriptions@${at.toISOString()}`);
          return 0;
        },
        sweepOverdue: async () => ran.push('overdue') && 0,
        sendReminders: async () => ran.push('reminders') && 0,
        nudgeMail: () => void ran.push('mail'),
      },
      leaseMs: 60_000,
      pollMs: 3_600_000,
      onError: () => {},
    });
    await expect(sut.runOnce()).rejects.toThrow('subscriptions did not answer');
    expect((await api.call('GET', `/api/v1/test_clocks/${clock.id}`)).body.data).toMatchObject({ status: 'advancing', frozen_time: '2027-01-12T09:00:00.000Z' });
    expect(await sut.runOnce()).toBe(true);
    expect(await sut.runOnce()).toBe(false);
    const step = (at: string) => [`subscriptions@${at}`, 'overdue', 'reminders', 'mail'];
    expect(ran).toEqual([
      ...step('2027-01-10T09:00:00.000Z'),
      ...step('2027-01-11T09:00:00.000Z'),
      // The failed step's time was committed: taken again, the clock runs its rules there first.
      ...step('2027-01-12T09:00:00.000Z'),
      ...step('2027-01-12T21:00:00.000Z'),
    ]);
    expect((await api.call('GET', `/api/v1/test_clocks/${clock.id}`)).body.data).toMatchObject({ status: 'ready', frozen_time: '2027-01-12T21:00:00.000Z' });
  });

  it('deletes a clock with its customers, and never another clock’s', async () => {
    const clock = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    const kept = (await api.call('POST', '/api/v1/test_clocks', { frozen_time: T0 })).body.data;
    expect((await api.call('DELETE', `/api/v1/test_clocks/${clock.id}`)).status).toBe(204);
    expect((await api.call('GET', `/api/v1/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/test_clocks/${clock.id}`)).status).toBe(404);
    expect((await api.call('GET', `/api/v1/test_clocks/${kept.id}`)).status).toBe(200);
  });
});
