import { randomUUID } from 'node:crypto';
import { createInvoicingClient } from '@invoicing/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNothingLostOrDoubled } from './support/expectations.ts';
import { startFaultPlatform, type FaultPlatform } from './support/fault-platform.ts';
import { repeatUntil, runLifecycles } from './support/lifecycles.ts';
import { formatFigures, reconcile } from './support/reconcile.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { prepareWorkspace, type FaultWorkspace } from './support/workspace.ts';

// One platform for every scenario, in sequence, each in a workspace of its own: starting the
// whole platform costs seconds, and two fault runs at once would disturb each other.
let platform: FaultPlatform;
let receiver: WebhookReceiver;
let scenarioStart = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  platform = await startFaultPlatform();
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
});

/** Starts a scenario on a whole platform: whatever an earlier one left dead is started again first. */
const beginScenario = async (slug: string, endpoints: Parameters<typeof prepareWorkspace>[3] = [{ path: `/${slug}`, behaviour: 'healthy' }]) => {
  await platform.reviveExited();
  scenarioStart = Date.now();
  return prepareWorkspace(platform, receiver, slug, endpoints);
};

/** No process exited without being killed by the test. */
const expectNoUnexpectedExit = () => expect(platform.describeUnexpectedExits(scenarioStart)).toBe('');

const reconcileRun = async (scenario: string, workspace: FaultWorkspace, requested: number, run: Awaited<ReturnType<typeof runLifecycles>>, extra = '') => {
  const figures = await reconcile({
    scenario,
    api: workspace.api,
    marker: workspace.marker,
    requested,
    run,
    receiver,
    endpointPath: `/${scenario}`,
    databaseUrl: platform.databaseUrl,
    workspaceId: workspace.workspaceId,
  });
  console.log(`${formatFigures(figures)}${extra}`);
  if (run.errors.length > 0) console.log(`[fault] ${scenario}: first client-visible errors ${JSON.stringify(run.errors.slice(0, 5))}`);
  return figures;
};

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const randomBetween = (low: number, high: number) => low + Math.random() * (high - low);

describe('faults: nothing is lost or doubled', () => {
  it('300 invoice lifecycles by 8 clients while billing is SIGKILLed and restarted', { timeout: 240_000 }, async () => {
    const scenario = 'billing-kills';
    const workspace = await beginScenario(scenario);
    const run = runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: 300, concurrency: 8 });
    const kills = await repeatUntil(run, 3_000, 3, () => platform.killAndRestart('billing'));
    const figures = await reconcileRun(scenario, workspace, 300, await run, ` billing_kills=${kills}`);
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, (await run).errors);
  });

  it('the gateway SIGKILLed after billing committed a create and a pay: the retry gets the original answer', { timeout: 120_000 }, async () => {
    const scenario = 'gateway-kill-after-commit';
    const workspace = await beginScenario(scenario);
    const { api } = workspace;
    /** Sends a keyed write whose first answer the interposer drops after killing the gateway. */
    const killGatewayAfterCommit = async <T>(key: string, send: () => Promise<T>) => {
      const dropped = platform.interposer.trapNext(
        (request) => request.headers['x-idempotency-key'] === key,
        () => platform.kill('gateway'),
      );
      const restarted = dropped.then(() => platform.restart('gateway'));
      const answer = await send();
      await restarted;
      return { answer, dropped: await dropped };
    };

    const createKey = randomUUID();
    const created = await killGatewayAfterCommit(createKey, () =>
      api.POST('/api/v1/invoices', {
        params: { header: { 'Idempotency-Key': createKey } },
        body: { customer: workspace.customer, currency: 'EUR', notes: `${workspace.marker}#0`, items: [{ description: 'Consulting', unit_amount: 12_000, quantity: 2 }] },
      }),
    );
    expect(created.dropped.status).toBe(201);
    expect({ status: created.answer.response.status, body: created.answer.data }).toEqual({ status: 201, body: JSON.parse(created.dropped.body) });
    const invoices = await api.GET('/api/v1/invoices', { params: { query: { q: `${workspace.marker}#0`, limit: 100 } } });
    expect(invoices.data?.data.map((invoice) => invoice.id)).toEqual([created.answer.data!.data.id]);

    const id = created.answer.data!.data.id;
    const finalized = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
    expect(finalized.response.status).toBe(200);

    const payKey = randomUUID();
    const paid = await killGatewayAfterCommit(payKey, () =>
      api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: { 'Idempotency-Key': payKey } }, body: { payment_reference: 'SEPA 1' } }),
    );
    expect(paid.dropped.status).toBe(200);
    expect({ status: paid.answer.response.status, body: paid.answer.data ?? paid.answer.error }).toEqual({ status: 200, body: JSON.parse(paid.dropped.body) });

    const timeline = await api.GET('/api/v1/invoices/{id}/timeline', { params: { path: { id } } });
    const payments = (timeline.data?.data ?? []).filter((entry) => entry.type === 'paid');
    expect(payments).toHaveLength(1);
    await delay(3_000); // a second event, had the pay run twice, would be on its way by now
    const paidEvents = [...receiver.countsAt(`/${scenario}`).firstDeliveries.values()].filter((delivery) => delivery.invoiceId === id && delivery.type === 'invoice.paid');
    expect(paidEvents).toHaveLength(1);
    expectNoUnexpectedExit();
  });

  it('lifecycles while the gateway is SIGKILLed at random moments', { timeout: 180_000 }, async () => {
    const scenario = 'gateway-kills';
    const workspace = await beginScenario(scenario);
    const requested = 100;
    const run = runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: requested, concurrency: 8 });
    const kills = await repeatUntil(run, randomBetween(1_500, 3_500), 3, () => platform.killAndRestart('gateway'));
    const figures = await reconcileRun(scenario, workspace, requested, await run, ` gateway_kills=${kills}`);
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, (await run).errors);
  });

  it('lifecycles while notifications and documents are SIGKILLed and restarted', { timeout: 180_000 }, async () => {
    const scenario = 'consumer-kills';
    const workspace = await beginScenario(scenario);
    const requested = 100;
    const run = runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: requested, concurrency: 8 });
    const kills = await repeatUntil(run, 2_000, 4, (round) => platform.killAndRestart(round % 2 === 0 ? 'notifications' : 'documents'));
    const figures = await reconcileRun(scenario, workspace, requested, await run, ` consumer_kills=${kills}`);
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, (await run).errors);
  });

  it('lifecycles while NATS is stopped for 10 s (and notifications restarted meanwhile): every event committed meanwhile arrives after', { timeout: 180_000 }, async () => {
    const scenario = 'nats-down';
    const workspace = await beginScenario(scenario);
    const requested = 100;
    const run = runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: requested, concurrency: 8 });
    await delay(1_500);
    await platform.nats.stop();
    const stoppedAt = Date.now();
    await delay(3_000);
    // A consumer that starts while NATS is away must come up anyway and catch up once it returns.
    await platform.kill('notifications');
    await platform.restart('notifications', { waitUntilReady: false });
    await delay(Math.max(0, 10_000 - (Date.now() - stoppedAt)));
    await platform.nats.start();
    const restartedReady = await platform.waitUntilReady('notifications', 30_000).then(
      () => 'ready',
      (error: Error) => error.message,
    );
    const figures = await reconcileRun(scenario, workspace, requested, await run);
    expect(restartedReady).toBe('ready');
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, (await run).errors);
  });

  it('PostgreSQL away: 503 problems within 2 s, every /readyz says why, no process exits, all heals by itself', { timeout: 120_000 }, async () => {
    const scenario = 'postgres-down';
    const workspace = await beginScenario(scenario);
    const minted = await platform.mintKey('postgres-down-probe');
    // No retries: the point is what one request answers while the database is away.
    const probe = createInvoicingClient({ baseUrl: platform.gatewayUrl, apiKey: minted.key, retry: { retries: 0 } });
    expect((await probe.GET('/api/v1/invoices', {})).response.status).toBe(200);
    const pidsBefore = platform.pids();

    await platform.postgres.stop();
    const timed = async <T>(send: () => Promise<T>) => {
      const started = Date.now();
      const result = await send();
      return { result, ms: Date.now() - started };
    };
    const apiAnswers = async () => {
      const answers = [
        await timed(() => probe.GET('/api/v1/invoices', {})),
        await timed(() => probe.GET('/api/v1/customers', {})),
        await timed(() =>
          probe.POST('/api/v1/invoices', {
            params: { header: { 'Idempotency-Key': randomUUID() } },
            body: { customer: workspace.customer, currency: 'EUR', items: [{ description: 'While the database is away', unit_amount: 100, quantity: 1 }] },
          }),
        ),
      ];
      return answers.map(({ result, ms }) => ({
        status: result.response.status,
        type: result.response.headers.get('content-type'),
        code: (result.error as { code?: string } | undefined)?.code,
        fast: ms < 2_000 ? 'within 2 s' : `${ms} ms`,
      }));
    };
    const readiness = async () =>
      Object.fromEntries(
        await Promise.all(
          platform.names.map(async (name) => {
            const started = Date.now();
            const response = await fetch(`${platform.urls[name]}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined);
            const body = (await response?.json().catch(() => undefined)) as { detail?: string } | undefined;
            const saysWhy = typeof body?.detail === 'string' && body.detail.length > 'Not ready: '.length;
            return [name, { status: response?.status, saysWhy, fast: Date.now() - started < 2_000 }] as const;
          }),
        ),
      );
    const whileAway = { rightAway: await apiAnswers(), readyz: await readiness(), afterThreeSeconds: await delay(3_000).then(apiAnswers) };
    await platform.postgres.start();

    const expected503 = { status: 503, type: 'application/problem+json', code: 'unavailable', fast: 'within 2 s' };
    const deadline = Date.now() + 30_000;
    let healed = false;
    while (!healed && Date.now() < deadline) {
      const ready = Object.values(await readiness()).every((probeResult) => probeResult.status === 200);
      healed = ready && (await probe.GET('/api/v1/invoices', {})).response.status === 200;
      if (!healed) await delay(250);
    }
    console.log(`[fault] ${scenario}: healed=${healed} within ${Date.now() - (deadline - 30_000)} ms of PostgreSQL's return; while away ${JSON.stringify(whileAway)}`);

    expect(whileAway).toEqual({
      rightAway: [expected503, expected503, expected503],
      readyz: Object.fromEntries(platform.names.map((name) => [name, { status: 503, saysWhy: true, fast: true }])),
      afterThreeSeconds: [expected503, expected503, expected503],
    });
    expect(healed).toBe(true);
    const run = await runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: 5, concurrency: 1 });
    expect(run.errors).toEqual([]);
    expect(platform.pids()).toEqual(pidsBefore);
    expectNoUnexpectedExit();
  });

  it('a webhook endpoint that hangs and one that resets: retried after the timeout, while a healthy one keeps getting its deliveries promptly', { timeout: 120_000 }, async () => {
    const scenario = 'slow-endpoints';
    const healthy = `/${scenario}`;
    const workspace = await beginScenario(scenario, [
      { path: `/${scenario}-hang`, behaviour: 'hang' },
      { path: `/${scenario}-reset`, behaviour: 'reset' },
      { path: healthy, behaviour: 'healthy' },
    ]);
    const requested = 60;
    const run = await runLifecycles({ api: workspace.api, customer: workspace.customer, marker: workspace.marker, count: requested, concurrency: 4 });
    const figures = await reconcileRun(scenario, workspace, requested, run);

    const firstByInvoice = new Map([...receiver.countsAt(healthy).firstDeliveries.values()].map((delivery) => [delivery.invoiceId, delivery.at]));
    const latencies = run.outcomes
      .filter((outcome) => outcome.paidAt !== undefined && firstByInvoice.has(outcome.invoiceId!))
      .map((outcome) => Math.max(0, firstByInvoice.get(outcome.invoiceId!)! - outcome.paidAt!))
      .sort((a, b) => a - b);
    const p50 = latencies[Math.floor(latencies.length / 2)] ?? Number.NaN;
    const max = latencies.at(-1) ?? Number.NaN;
    // Each bad endpoint must have been tried again after its first attempt failed.
    await delay(4_000);
    const attempts = { hang: receiver.arrivals(`/${scenario}-hang`), reset: receiver.arrivals(`/${scenario}-reset`) };
    console.log(`[fault] ${scenario}: healthy pay-to-delivery p50=${p50} ms max=${max} ms over ${latencies.length}; attempts at hang=${attempts.hang} reset=${attempts.reset} for ${figures.paid} events`);

    expectNothingLostOrDoubled(figures, run.errors);
    expect(receiver.countsAt(healthy).redeliveries).toBe(0);
    expect(attempts.hang).toBeGreaterThanOrEqual(2 * figures.paid);
    expect(attempts.reset).toBeGreaterThanOrEqual(2 * figures.paid);
    expect({ p50Below: p50 < 1_000, maxBelow: max < 3_000 }).toEqual({ p50Below: true, maxBelow: true });
    expectNoUnexpectedExit();
  });
});
