import { randomUUID } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '@invoicing/testing';
import pg from 'pg';
import { createInvoicingClient } from '@invoicing/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectNothingLostOrDoubled } from './support/expectations.ts';
import { startFaultPlatform, type FaultPlatform } from './support/fault-platform.ts';
import { SmtpServerProcess } from './support/smtp-process.ts';
import { repeatUntil, runLifecycles, type LifecycleRun } from './support/lifecycles.ts';
import { formatFigures, listAllInvoices, reconcile } from './support/reconcile.ts';
import { dueMonthlyStarts, formatSubscriptionFigures, pastStartDate, reconcileSubscriptions, type PlannedSubscription } from './support/subscriptions.ts';
import { startWebhookReceiver, type WebhookReceiver } from './support/webhook-receiver.ts';
import { formatPaymentFigures, reconcilePayments, statementFor, untilAnswered } from './support/payments.ts';
import { prepareWorkspace, type FaultWorkspace } from './support/workspace.ts';

// One platform for every scenario, in sequence, each in a workspace of its own: starting the
// whole platform costs seconds, and two fault runs at once would disturb each other.
let platform: FaultPlatform;
let receiver: WebhookReceiver;
let smtp: SmtpServerProcess;
let smtpDir: string;
let scenarioStart = 0;

beforeAll(async () => {
  receiver = await startWebhookReceiver();
  // A real SMTP server of its own process, which a scenario kills; its log of accepted messages is a file.
  smtpDir = await mkdtemp(join(tmpdir(), 'fault-smtp-'));
  smtp = await SmtpServerProcess.launch(await freePort(), join(smtpDir, 'received.jsonl'));
  platform = await startFaultPlatform({
    extraEnv: {
      SMTP_URL: smtp.url,
      MAIL_FROM: 'Invoices <invoices@fault.example>',
      // Temporary failures (the server away, a dropped connection) are retried for about 40 s.
      MAIL_RETRY_SCHEDULE: '0,1,1,2,2,3,3,4,4,5,5,5',
      MAIL_TIMEOUT_MS: '5000',
      DOCUMENTS_TIMEOUT_MS: '5000',
      MAIL_POLL_MS: '200',
      SEND_RATE_LIMIT_MAX: '1000000',
    },
  });
});

afterAll(async () => {
  await platform?.stop();
  await receiver?.close();
  await smtp?.stop();
  if (smtpDir) await rm(smtpDir, { recursive: true, force: true });
});

/** Starts a scenario on a whole platform: whatever an earlier one left dead is started again first. */
const beginScenario = async (slug: string, endpoints: Parameters<typeof prepareWorkspace>[3] = [{ path: `/${slug}`, behaviour: 'healthy' }]) => {
  await platform.reviveExited();
  scenarioStart = Date.now();
  return prepareWorkspace(platform, receiver, slug, endpoints);
};

/** No process exited without being killed by the test. */
const expectNoUnexpectedExit = () => expect(platform.describeUnexpectedExits(scenarioStart)).toBe('');

const reconcileRun = async (scenario: string, workspace: FaultWorkspace, requested: number, run: LifecycleRun, extra = '') => {
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
  if (run.errors.length > 0) {
    console.log(`[fault] ${scenario}: first client-visible errors ${JSON.stringify(run.errors.slice(0, 5))}`);
    for (const name of ['gateway', 'billing']) console.log(`[fault] ${scenario}: last lines of ${name}:\n${platform.logTail(name, 5)}`);
  }
  return figures;
};

const lifecycleTarget = ({ api, customer, marker }: FaultWorkspace) => ({ api, customer, marker });

/** From each pay's answer to the first delivery of its invoice.paid at `path`: median and maximum, in ms. */
const deliveryLatencies = (run: LifecycleRun, path: string) => {
  const firstByInvoice = new Map([...receiver.countsAt(path).firstDeliveries.values()].map((delivery) => [delivery.invoiceId, delivery.at]));
  const latencies = run.outcomes
    .filter((outcome) => outcome.paidAt !== undefined && firstByInvoice.has(outcome.invoiceId!))
    .map((outcome) => Math.max(0, firstByInvoice.get(outcome.invoiceId!)! - outcome.paidAt!))
    .sort((a, b) => a - b);
  return { p50: latencies[Math.floor(latencies.length / 2)] ?? Number.NaN, max: latencies.at(-1) ?? Number.NaN };
};

const within = <T>(promise: Promise<T>, ms: number, what: string): Promise<T> =>
  Promise.race([promise, delay(ms).then(() => Promise.reject(new Error(`Not within ${ms} ms: ${what}`)))]);

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether `condition` came true within `timeoutMs`, looking every 100 ms. */
const waitUntil = async (condition: () => boolean, timeoutMs: number): Promise<boolean> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) return false;
    await delay(100);
  }
  return true;
};
const randomBetween = (low: number, high: number) => low + Math.random() * (high - low);

/** The invoices subscriptions made in the workspace. */
const listAllInvoicesOf = async (api: FaultWorkspace['api']) => (await listAllInvoices(api)).filter((invoice) => invoice.subscription !== null);
/** Runs `work` over `items`, at most `concurrency` at a time, like that many clients. */
const asClients = async <T, R>(concurrency: number, items: readonly T[], work: (item: T) => Promise<R>): Promise<R[]> => {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < items.length) {
        const index = next++;
        results[index] = await work(items[index]!);
      }
    }),
  );
  return results;
};

describe('faults: nothing is lost or doubled', () => {
  it('300 invoice lifecycles by 8 clients while billing is SIGKILLed and restarted', { timeout: 240_000 }, async () => {
    const scenario = 'billing-kills';
    const workspace = await beginScenario(scenario);
    const run = runLifecycles({ ...lifecycleTarget(workspace), count: 300, concurrency: 8 });
    const kills = await repeatUntil(run, 2_000, 3, () => platform.killAndRestart('billing'));
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
      await within(restarted, 5_000, 'the trapped request reached billing and the gateway was restarted');
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

  it('the gateway SIGKILLed with keyed creates and finalizes in flight: every retry within 10 s gets the original answer', { timeout: 120_000 }, async () => {
    const scenario = 'gateway-kill-in-flight';
    const workspace = await beginScenario(scenario);
    const { api, apiKey, customer, marker } = workspace;
    const RETRY_BUDGET_MS = 10_000;
    // The gateway that dies waits for services as long as by default (30 s), as it did when the keys
    // of a dead gateway stayed held for twice that; the one started after it has the test's settings.
    await platform.kill('gateway');
    await platform.restart('gateway', { env: { UPSTREAM_TIMEOUT_MS: '30000' } });
    const draftIds: string[] = [];
    for (let index = 0; index < 3; index += 1) {
      const draft = await api.POST('/api/v1/invoices', {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: { customer, currency: 'EUR', notes: `${marker}#${index}`, items: [{ description: 'Consulting', unit_amount: 12_000, quantity: 2 }] },
      });
      draftIds.push(draft.data!.data.id);
    }
    const writes = [
      ...draftIds.map((id) => ({ key: randomUUID(), path: `/api/v1/invoices/${id}/finalize`, body: undefined })),
      ...[3, 4, 5].map((index) => ({
        key: randomUUID(),
        path: '/api/v1/invoices',
        body: { customer, currency: 'EUR', notes: `${marker}#${index}`, items: [{ description: 'Travel', unit_amount: 4_550, quantity: 1 }] },
      })),
    ];

    // Half of the writes have been answered by billing (committed) when the gateway dies; the other
    // half reach billing only after it died, as a request still on its way would.
    let killGateway!: () => void;
    const gatewayKilled = new Promise<void>((resolve) => (killGateway = resolve));
    let inFlight = 0;
    const counted = () => void (inFlight += 1);
    const originals = writes.map((write, index) =>
      platform.interposer.trapNext(
        (request) => request.headers['x-idempotency-key'] === write.key,
        async () => {
          if (index % 2 === 0) counted();
          await gatewayKilled;
        },
        index % 2 === 0 ? {} : { beforeForward: () => (counted(), gatewayKilled) },
      ),
    );

    let killedAt = Number.POSITIVE_INFINITY;
    /** A client that retries the same request under the same key, for RETRY_BUDGET_MS after the gateway died. */
    const sendUntilAnswered = async ({ key, path, body }: (typeof writes)[number]) => {
      let attempts = 0;
      for (;;) {
        attempts += 1;
        const answer = await fetch(`${platform.gatewayUrl}${path}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${apiKey}`, 'idempotency-key': key, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        }).then(
          async (response) => ({ status: response.status, replayed: response.headers.get('idempotent-replayed'), body: (await response.json()) as unknown }),
          () => undefined,
        );
        const retryable = answer === undefined || answer.status === 503 || (answer.status === 409 && (answer.body as { code?: string }).code === 'idempotency_key_in_use');
        if (!retryable || Date.now() - killedAt > RETRY_BUDGET_MS) return { ...answer, attempts, msAfterKill: Date.now() - killedAt };
        await delay(200);
      }
    };
    const answers = Promise.all(writes.map(sendUntilAnswered));

    expect(await waitUntil(() => inFlight === writes.length, 15_000)).toBe(true);
    await platform.kill('gateway');
    killedAt = Date.now();
    killGateway();
    await platform.restart('gateway');

    const answered = await answers;
    const committed = await Promise.all(originals);
    console.log(
      `[fault] ${scenario}: ${answered.map((answer, index) => `${index < 3 ? 'finalize' : 'create'} ${answer.status} after ${answer.msAfterKill} ms (${answer.attempts} attempts)`).join(', ')}`,
    );
    // Each retry got what billing committed for its key, answered from billing's own record.
    expect(answered.map(({ status, replayed, body }) => ({ status, replayed, body }))).toEqual(
      committed.map(({ status, body }) => ({ status, replayed: 'true', body: JSON.parse(body) as unknown })),
    );
    expect(committed.map(({ status }) => status)).toEqual([200, 200, 200, 201, 201, 201]);
    expect(answered.every(({ msAfterKill }) => msAfterKill <= RETRY_BUDGET_MS)).toBe(true);

    // Nothing happened twice: six invoices, three numbers, each taken once.
    const database = new pg.Client({ connectionString: platform.databaseUrl });
    await database.connect();
    try {
      const { rows: invoices } = await database.query<{ number: string | null }>('select number from billing.invoices where workspace_id = $1', [workspace.workspaceId]);
      const { rows: series } = await database.query<{ taken: string }>('select coalesce(sum(last_value), 0) as taken from billing.number_series where workspace_id = $1', [
        workspace.workspaceId,
      ]);
      const numbers = invoices.flatMap(({ number }) => (number === null ? [] : [number]));
      expect({ invoices: invoices.length, numbers: numbers.length, distinctNumbers: new Set(numbers).size, numbersTaken: Number(series[0]!.taken) }).toEqual({
        invoices: 6,
        numbers: 3,
        distinctNumbers: 3,
        numbersTaken: 3,
      });
    } finally {
      await database.end();
    }
    expectNoUnexpectedExit();
  });

  it('lifecycles while the gateway is SIGKILLed at random moments', { timeout: 180_000 }, async () => {
    const scenario = 'gateway-kills';
    const workspace = await beginScenario(scenario);
    const faults = (async () => {
      for (let kill = 0; kill < 4; kill += 1) {
        await delay(randomBetween(1_500, 3_500));
        await platform.killAndRestart('gateway');
      }
      await delay(1_000);
    })();
    const run = await runLifecycles({ ...lifecycleTarget(workspace), count: 1_000, concurrency: 8, until: faults, paceMs: 300 });
    const figures = await reconcileRun(scenario, workspace, run.outcomes.length, run, ' gateway_kills=4');
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, run.errors);
  });

  it('partial payments and bank statement imports while billing and the gateway are SIGKILLed: each payment once, one invoice.paid per paid invoice, Σ payments = amount_paid', { timeout: 240_000 }, async () => {
    const scenario = 'payments-kills';
    const workspace = await beginScenario(scenario);
    const { api, apiKey, customer, marker } = workspace;
    // 40 open invoices of 100.00 EUR, made before any fault.
    const invoices: { id: string; number: string; total: number }[] = [];
    for (let index = 0; index < 40; index += 1) {
      const draft = await api.POST('/api/v1/invoices', {
        params: { header: { 'Idempotency-Key': randomUUID() } },
        body: { customer, currency: 'EUR', notes: `${marker}#${index}`, items: [{ description: 'Consulting', unit_amount: 10_000 }] },
      });
      const open = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.data!.data.id }, header: { 'Idempotency-Key': randomUUID() } } });
      invoices.push({ id: open.data!.data.id, number: open.data!.data.number!, total: open.data!.data.total });
    }
    const byHand = invoices.slice(0, 20);
    const fromBank = invoices.slice(20);
    const post = (path: string, body: string, contentType: string) => (key: string) =>
      fetch(`${platform.gatewayUrl}${path}`, { method: 'POST', headers: { authorization: `Bearer ${apiKey}`, 'content-type': contentType, 'idempotency-key': key }, body });

    // Bank statements: half of the bank's invoices in two parts each (a Dutch bank's camt.053), the
    // other half in a batch booking (a UBS camt.054); each imported three times, under a new key
    // each time, and a statement overlapping both, twice: every credit is paid once.
    const dutch = statementFor(fromBank.slice(0, 10), 2, 'dutch', 'NL-2026-11-20');
    const ubs = statementFor(fromBank.slice(10), 2, 'ubs', 'CH-2026-11-20');
    const overlapping = statementFor(fromBank, 2, 'dutch', 'NL-2026-11-20');
    const imports = [dutch, ubs, overlapping, dutch, ubs, overlapping, dutch, ubs];
    const answers: { what: string; status: number }[] = [];
    const work = (async () => {
      const payments = byHand.flatMap((invoice) => [1, 2, 3, 4].map(() => invoice));
      let next = 0;
      const payer = async () => {
        while (next < payments.length) {
          const invoice = payments[next++]!;
          const answer = await untilAnswered(post(`/api/v1/invoices/${invoice.id}/payments`, JSON.stringify({ amount: invoice.total / 4, payment_reference: `${invoice.number} part` }), 'application/json'));
          answers.push({ what: 'payment', status: answer.status });
        }
      };
      const importer = async () => {
        for (const statement of imports) {
          const answer = await untilAnswered(post('/api/v1/bank_statements', statement, 'application/xml'));
          answers.push({ what: 'statement', status: answer.status });
          await delay(300);
        }
      };
      await Promise.all([payer(), payer(), payer(), payer(), importer()]);
    })();
    let billingKills = 0;
    let gatewayKills = 0;
    const kills = await repeatUntil(work, () => randomBetween(800, 1_800), 4, async (round) => {
      if (round % 2 === 0) {
        billingKills += 1;
        await platform.killAndRestart('billing');
      } else {
        gatewayKills += 1;
        await platform.killAndRestart('gateway');
      }
    });
    await work;
    const figures = await reconcilePayments({
      api,
      invoiceIds: invoices.map((invoice) => invoice.id),
      expectedPayments: byHand.length * 4 + fromBank.length * 2,
      databaseUrl: platform.databaseUrl,
      workspaceId: workspace.workspaceId,
      receiver,
      endpointPath: `/${scenario}`,
    });
    const failed = answers.filter((answer) => answer.status >= 300);
    console.log(formatPaymentFigures(scenario, figures, ` client_errors=${failed.length} kills=${kills} billing_kills=${billingKills} gateway_kills=${gatewayKills}`));
    expectNoUnexpectedExit();
    expect({ ...figures, failed }).toEqual({
      ...figures,
      paid: 40,
      payments: figures.expectedPayments,
      sumPayments: 40 * 10_000,
      sumAmountPaid: 40 * 10_000,
      mismatched: 0,
      paidEventsInOutbox: 40,
      paidWithSeveralEvents: 0,
      paidEventsDelivered: 40,
      paymentRecordedEvents: figures.expectedPayments,
      failed: [],
    });
    expect(figures.entries.matched).toBe(fromBank.length * 2);
    expect(figures.entries.unmatched ?? 0).toBe(0);
    expect(billingKills).toBeGreaterThanOrEqual(2);
    expect(gatewayKills).toBeGreaterThanOrEqual(2);
  });

  it('lifecycles while notifications and documents are SIGKILLed and restarted', { timeout: 180_000 }, async () => {
    const scenario = 'consumer-kills';
    const workspace = await beginScenario(scenario);
    const faults = (async () => {
      const restartMs: number[] = [];
      for (const name of ['notifications', 'documents', 'notifications', 'documents']) {
        await delay(2_000);
        restartMs.push(await platform.killAndRestart(name));
      }
      await delay(1_000);
      return restartMs;
    })();
    const run = await runLifecycles({ ...lifecycleTarget(workspace), count: 1_000, concurrency: 8, until: faults, paceMs: 300 });
    const figures = await reconcileRun(scenario, workspace, run.outcomes.length, run, ` restart_ms=${(await faults).join(',')}`);
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, run.errors);
  });

  it('lifecycles while NATS is stopped for 10 s (and notifications restarted meanwhile): every event committed meanwhile arrives after', { timeout: 180_000 }, async () => {
    const scenario = 'nats-down';
    const workspace = await beginScenario(scenario);
    let restartedReady = 'not restarted';
    const faults = (async () => {
      await delay(1_500);
      await platform.nats.stop();
      const stoppedAt = Date.now();
      await delay(3_000);
      // A consumer that starts while NATS is away must come up anyway and catch up once it returns.
      await platform.kill('notifications');
      await platform.restart('notifications', { waitUntilReady: false });
      await delay(Math.max(0, 10_000 - (Date.now() - stoppedAt)));
      await platform.nats.start();
      restartedReady = await platform.waitUntilReady('notifications', 30_000).then(
        () => 'ready',
        (error: Error) => error.message,
      );
      await delay(1_500);
    })();
    const run = await runLifecycles({ ...lifecycleTarget(workspace), count: 1_000, concurrency: 8, until: faults, paceMs: 300 });
    await faults;
    const figures = await reconcileRun(scenario, workspace, run.outcomes.length, run);
    expect(restartedReady).toBe('ready');
    expectNoUnexpectedExit();
    expectNothingLostOrDoubled(figures, run.errors);
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
        problem: result.response.headers.get('content-type')?.startsWith('application/problem+json') ?? false,
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

    const expected503 = { status: 503, problem: true, code: 'unavailable', fast: 'within 2 s' };
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
    // The same run first against a workspace with only a healthy endpoint: the latency to beat.
    const control = await beginScenario('slow-endpoints-control');
    const controlRun = await runLifecycles({ ...lifecycleTarget(control), count: 60, concurrency: 4 });
    await reconcileRun('slow-endpoints-control', control, 60, controlRun);
    const baseline = deliveryLatencies(controlRun, '/slow-endpoints-control');

    const scenario = 'slow-endpoints';
    const workspace = await beginScenario(scenario, [
      { path: `/${scenario}-hang`, behaviour: 'hang' },
      { path: `/${scenario}-reset`, behaviour: 'reset' },
      { path: `/${scenario}`, behaviour: 'healthy' },
    ]);
    const requested = 60;
    const run = await runLifecycles({ ...lifecycleTarget(workspace), count: requested, concurrency: 4 });
    const figures = await reconcileRun(scenario, workspace, requested, run);
    const latency = deliveryLatencies(run, `/${scenario}`);
    // Each bad endpoint is tried again after an attempt failed (schedule 0,1,1,...): the resetting one
    // fails at once, so every event comes again soon; the hanging one holds at most its share of the
    // slots (WEBHOOK_ENDPOINT_CONCURRENCY, 8) for the deadline, so its retries come more slowly.
    const retried = await waitUntil(
      () => receiver.countsAt(`/${scenario}-hang`).redeliveries >= 1 && receiver.arrivals(`/${scenario}-reset`) >= 2 * figures.paid,
      30_000,
    );
    const attempts = { hang: receiver.arrivals(`/${scenario}-hang`), reset: receiver.arrivals(`/${scenario}-reset`) };
    const heldOpen = receiver.mostHeldOpen(`/${scenario}-hang`);
    console.log(
      `[fault] ${scenario}: healthy endpoint pay-to-delivery p50=${latency.p50} ms max=${latency.max} ms (alone: p50=${baseline.p50} ms max=${baseline.max} ms); ` +
        `attempts at the hanging endpoint=${attempts.hang} (at most ${heldOpen} held open at once), at the resetting one=${attempts.reset}, for ${figures.paid} events`,
    );

    expectNothingLostOrDoubled(figures, run.errors);
    expect(receiver.countsAt(`/${scenario}`).redeliveries).toBe(0);
    expect(retried).toBe(true);
    expect(heldOpen).toBeLessThanOrEqual(8);
    // Healthy deliveries must never wait for a bad endpoint's timeout (WEBHOOK_TIMEOUT_MS 1500).
    expect({ p50: latency.p50 < 1_000, max: latency.max < 1_500 }).toEqual({ p50: true, max: true });
    expectNoUnexpectedExit();
  });
  it('500 monthly subscriptions started in the past while subscriptions, billing and NATS are SIGKILLed and restarted: one invoice per subscription and period', { timeout: 300_000 }, async () => {
    const scenario = 'subscription-kills';
    const { api } = await beginScenario(scenario);
    const product = await api.POST('/api/v1/products', { body: { name: 'Pro plan' } });
    const unitAmount = 4_900;
    const price = await api.POST('/api/v1/prices', {
      body: { product: product.data!.data.id, unit_amount: unitAmount, currency: 'EUR', tax_rate: 19, type: 'recurring', recurring: { interval: 'month', interval_count: 1 } },
    });
    const customer = await api.POST('/api/v1/customers', { body: { name: 'Subscriber GmbH' } });
    const today = new Date().toISOString().slice(0, 10);
    const planned: PlannedSubscription[] = [];
    const errors: string[] = [];
    const started = Date.now();
    // 500 subscriptions by 8 clients, 1 to 3 months and up to 27 days back (2 to 4 periods due each), every retry under its key.
    let next = 0;
    const creating = Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < 500) {
          const index = next++;
          const startDate = pastStartDate(today, 1 + (index % 3), index % 28);
          const key = randomUUID();
          const created = await api.POST('/api/v1/subscriptions', {
            params: { header: { 'Idempotency-Key': key } },
            body: { customer: customer.data!.data.id, items: [{ price: price.data!.data.id }], start_date: startDate },
          });
          if (created.data) planned.push({ id: created.data.data.id, startDate, dueStarts: dueMonthlyStarts(startDate, today) });
          else errors.push(`${created.response.status} ${JSON.stringify(created.error)}`);
        }
      }),
    );
    const expected = () => planned.reduce((sum, subscription) => sum + subscription.dueStarts.length, 0);
    const invoiced = async () => (await listAllInvoicesOf(api)).length;
    let creationDone = false;
    void creating.finally(() => (creationDone = true));
    // Kills in turn, every 2-3 s, until the subscriptions are made and every due period has an invoice (at least twice each).
    const kills = { subscriptions: 0, billing: 0, nats: 0 };
    const victims = ['subscriptions', 'billing', 'nats'] as const;
    for (let round = 0; ; round += 1) {
      await delay(randomBetween(2_000, 3_000));
      const victim = victims[round % victims.length]!;
      if (victim === 'nats') {
        await platform.nats.stop('SIGKILL');
        await delay(1_500);
        await platform.nats.start();
      } else {
        await platform.kill(victim);
        await platform.restart(victim);
      }
      kills[victim] += 1;
      if (round >= 5 && creationDone && (await invoiced()) >= expected()) break;
      if (Date.now() - started > 150_000) break;
    }
    await creating;
    const deadline = Date.now() + 120_000;
    while ((await invoiced()) < expected() && Date.now() < deadline) await delay(1_000);
    // Late duplicates (a retry from a replica that was killed mid-period) get a moment to show.
    await delay(3_000);
    const figures = await reconcileSubscriptions(api, planned, Math.round(unitAmount * 1.19));
    const duration = ((Date.now() - started) / 1000).toFixed(1);
    console.log(formatSubscriptionFigures(scenario, figures, ` client_errors=${errors.length} subscriptions_kills=${kills.subscriptions} billing_kills=${kills.billing} nats_kills=${kills.nats} duration=${duration}s`));
    expectNoUnexpectedExit();
    expect({ ...figures, errors: errors.slice(0, 3) }).toEqual({
      subscriptions: 500,
      expected: figures.expected,
      invoices: figures.expected,
      duplicates: 0,
      missing: 0,
      unexpected: 0,
      notFinalized: 0,
      numberGaps: 0,
      duplicateNumbers: 0,
      numberingVerified: true,
      totalsReconciled: true,
      errors: [],
    });
    expect(figures.expected).toBeGreaterThanOrEqual(1_000);
  });

  it('200 e-mail sends while billing (which sends them) and the SMTP server are SIGKILLed and restarted: every message delivered, with one Message-ID each', { timeout: 300_000 }, async () => {
    const scenario = 'email-kills';
    const workspace = await beginScenario(scenario);
    const { api } = workspace;
    const requested = 200;
    await api.PATCH('/api/v1/customers/{id}', { params: { path: { id: workspace.customer } }, body: { email: 'accounts@buyer.example' } });
    // The invoices first, without faults: what is under test is their e-mail.
    const invoiceIds = (
      await asClients(8, Array.from({ length: requested }, (_, index) => index), async (index) => {
        const created = await api.POST('/api/v1/invoices', {
          params: { header: { 'Idempotency-Key': randomUUID() } },
          body: { customer: workspace.customer, currency: 'EUR', notes: `${workspace.marker}#${index}`, items: [{ description: 'Consulting', unit_amount: 12_000, quantity: 2 }] },
        });
        const id = created.data!.data.id;
        await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
        return id;
      })
    ).filter((id): id is string => typeof id === 'string');
    expect(invoiceIds).toHaveLength(requested);

    const database = new pg.Client({ connectionString: platform.databaseUrl });
    await database.connect();
    const countsByStatus = async () =>
      Object.fromEntries(
        (await database.query<{ status: string; count: string }>('select status, count(*) as count from billing.messages where workspace_id = $1 group by status', [workspace.workspaceId])).rows.map(
          (row) => [row.status, Number(row.count)],
        ),
      ) as Record<string, number>;
    const started = Date.now();
    const errors: { invoice: string; status: number }[] = [];
    // Each send once, retried by the client under its key until answered; then until nothing is queued.
    const sendingAndDelivery = (async () => {
      await asClients(8, invoiceIds, async (id) => {
        const sent = await api.POST('/api/v1/invoices/{id}/send', { params: { path: { id }, header: { 'Idempotency-Key': `send-${id}` } }, body: {} });
        if (sent.response.status !== 202) errors.push({ invoice: id, status: sent.response.status });
      });
      const deadline = Date.now() + 150_000;
      while (Date.now() < deadline) {
        const counts = await countsByStatus().catch(() => ({}) as Record<string, number>);
        if ((counts.sent ?? 0) + (counts.failed ?? 0) >= requested && !counts.queued) return;
        await delay(250);
      }
    })();
    let billingKills = 0;
    let smtpKills = 0;
    // Alternately, at random moments: billing (its mail worker with it), then the SMTP server.
    await repeatUntil(sendingAndDelivery, () => randomBetween(1_000, 2_500), 6, async (round) => {
      if (round % 2 === 0) {
        await platform.killAndRestart('billing');
        billingKills += 1;
      } else {
        await smtp.killAndRestart();
        smtpKills += 1;
      }
    });
    await sendingAndDelivery;
    const deliveredIn = Date.now() - started;

    // Reconciled over the API: one message per invoice, sent; and against the server's log.
    const messages = await asClients(8, invoiceIds, async (id) => (await api.GET('/api/v1/invoices/{id}/messages', { params: { path: { id } } })).data?.data ?? []);
    const all = messages.flat();
    const expectedIds = new Set(all.map((message) => `<${message.id}@fault.example>`));
    const log = smtp.received();
    const timesDelivered = new Map<string, number>();
    for (const line of log) if (line.message_id) timesDelivered.set(line.message_id, (timesDelivered.get(line.message_id) ?? 0) + 1);
    const figures = {
      requested,
      messages: all.length,
      invoices_with_one_message: messages.filter((each) => each.length === 1).length,
      sent: all.filter((message) => message.status === 'sent').length,
      failed: all.filter((message) => message.status === 'failed').length,
      delivered: [...expectedIds].filter((id) => timesDelivered.has(id)).length,
      missing: [...expectedIds].filter((id) => !timesDelivered.has(id)).length,
      delivered_twice: [...timesDelivered.values()].filter((times) => times > 1).length,
      unknown_in_log: [...timesDelivered.keys()].filter((id) => id.endsWith('@fault.example>') && !expectedIds.has(id)).length,
      attempts: all.reduce((sum, message) => sum + message.attempts, 0),
      with_pdf: all.filter((message) => message.attachments.length === 1 && message.attachments[0]!.size > 1000).length,
      client_errors: errors.length,
    };
    const counts = await countsByStatus();
    await database.end();
    console.log(
      `[fault] ${scenario}: ${Object.entries(figures)
        .map(([name, value]) => `${name}=${value}`)
        .join(' ')} log_lines=${log.length} duration=${(deliveredIn / 1000).toFixed(1)}s billing_kills=${billingKills} smtp_kills=${smtpKills} by_status=${JSON.stringify(counts)}`,
    );
    expect(figures).toEqual({
      requested,
      messages: requested,
      invoices_with_one_message: requested,
      sent: requested,
      failed: 0,
      delivered: requested,
      missing: 0,
      delivered_twice: figures.delivered_twice,
      unknown_in_log: 0,
      attempts: figures.attempts,
      with_pdf: requested,
      client_errors: 0,
    });
    // At least once: a message goes out twice, with its one Message-ID (a reader's mail client shows
    // it once), only when billing dies between the server's acceptance of its last byte and the
    // statement that records it; each death can repeat at most the MAIL_CONCURRENCY (4) messages in flight.
    expect(figures.delivered_twice).toBeLessThanOrEqual(billingKills * 4);
    expect(billingKills).toBeGreaterThanOrEqual(3);
    expect(smtpKills).toBeGreaterThanOrEqual(3);
    expectNoUnexpectedExit();
  });
});
