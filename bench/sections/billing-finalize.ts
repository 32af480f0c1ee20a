import { randomUUID } from 'node:crypto';
import { parsePublicId } from '@invoicing/contracts';
import pg from 'pg';
import { renderLineChart } from '../chart.ts';
import { mark, micros, ms, perSecond, times } from '../format.ts';
import { ALL, median, medianCpu, perRequest, type CpuSeconds } from '../process-meter.ts';
import { copyDraft } from '../seed-invoices.ts';
import type { BenchContext, BenchSection, TargetResult } from '../section.ts';
import type { Table } from '../table.ts';

/**
 * The targets (issue 13), all on one workspace and one number series: finalize through the
 * gateway with group commit against the raw-SQL one-transaction-per-finalize ceiling and against
 * billing with FINALIZE_BATCH_MAX=1; the billing run against today's lifecycle.
 */
const TARGETS = {
  minCeilingRatioAt32: 0.8,
  minCeilingRatioAt8: 0.7,
  minBatchedToUnbatchedAt32: 3,
  minRunToLifecycle: 3,
  minStepRatio: 0.95,
  /** CPU of a batched finalize, every process, against the raw-SQL ceiling's (issue 19). */
  maxCpuToCeilingAt32: 1.6,
  /** Billing's own CPU per batched finalize against the ceiling's whole path (issue 19). */
  maxBillingCpuToCeilingAt32: 0.4,
};
const LIFECYCLE_CLIENTS = 8;
const RUN_CLIENTS = 32;
/** How billing is started for each mode: its own default (group commit), or group commit off. */
const MODES = { batched: {}, unbatched: { FINALIZE_BATCH_MAX: '1' } } as const satisfies Record<string, Record<string, string>>;
type Mode = keyof typeof MODES;
/** Rows the SQL ceiling may use: more than any database here commits in the run. */
const ceilingRowsFor = (seconds: number) => 2_000 * seconds;
/** Drafts copied for a finalize measurement: enough that no client runs dry unless finalize runs at 3x the ceiling. */
const draftsFor = (ceilingPerSecond: number, seconds: number, clients: number) => Math.ceil(Math.max(ceilingPerSecond, 50) * seconds * 3) + 4 * clients;

const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Run {
  /** Items that succeeded, per second of the whole drive. */
  perSecond: number;
  p50: number;
  p99: number;
  /** Items attempted, failed ones included. */
  count: number;
  succeeded: number;
  serverErrors: number;
  otherFailures: number;
  /** The work ran out before the time did. */
  ranDry: boolean;
}

interface Measured extends Run {
  cpuPerRequest: CpuSeconds;
}

/**
 * `clients` loops, each doing `work` until `seconds` have passed or `next` runs dry; every call is
 * timed. `work` answers the HTTP status (0 for a network error).
 */
export const drive = async <T>(clients: number, seconds: number, next: () => T | undefined, work: (item: T) => Promise<number>): Promise<Run> => {
  const durations: number[] = [];
  let serverErrors = 0;
  let otherFailures = 0;
  let ranDry = false;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < until) {
        const item = next();
        if (item === undefined) {
          ranDry = true;
          return;
        }
        const begun = performance.now();
        const status = await work(item);
        durations.push(performance.now() - begun);
        if (status >= 500 || status === 0) serverErrors += 1;
        else if (status >= 300) otherFailures += 1;
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  const succeeded = durations.length - serverErrors - otherFailures;
  return { perSecond: succeeded / elapsedSeconds, p50: percentile(durations, 50), p99: percentile(durations, 99), count: durations.length, succeeded, serverErrors, otherFailures, ranDry };
};

/** `drive` inside a measured window: the CPU each process spent per completed item. */
export const driveMeasured = async <T>(context: BenchContext, ...args: Parameters<typeof drive<T>>): Promise<Measured> => {
  const { value, cpu } = await context.meter.window(() => drive(...args));
  return { ...value, cpuPerRequest: perRequest(cpu, value.succeeded) };
};

/** Non-2xx answers by request and what they said, so the report can say which requests failed and how. */
export type FailureLog = Map<string, number>;

export const api = (context: BenchContext, key: string, failures: FailureLog) => async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
  const note = (status: number, said: string) => {
    const what = `${method} ${path.replace(/\/in_[0-9a-f]{32}/, '/:id')} → ${status || 'network error'} ${said}`.trim();
    failures.set(what, (failures.get(what) ?? 0) + 1);
  };
  try {
    const response = await fetch(`${context.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json: any = await response.json().catch(() => undefined);
    if (response.status >= 300) note(response.status, String(json?.code ?? json?.title ?? ''));
    return { status: response.status, json };
  } catch (error) {
    note(0, error instanceof Error ? (error.cause instanceof Error ? error.cause.message : error.message) : String(error));
    return { status: 0, json: undefined };
  }
};

export const must = async (call: Promise<{ status: number; json: any }>, what: string) => {
  const { status, json } = await call;
  if (status >= 300) throw new Error(`${what} answered ${status}: ${JSON.stringify(json)}`);
  return json.data;
};

/**
 * The ceiling: what this database does at the same concurrency with nothing but SQL, in
 * transactions shaped like a finalize — lock the invoice row, increment the series counter, update
 * the invoice, insert the outbox row, one commit each — on tables of its own, in a schema of its own.
 */
const measureCeiling = async (context: BenchContext, clients: number, envelope: string): Promise<Measured> => {
  const seconds = context.durationSeconds;
  const pool = new pg.Pool({ connectionString: context.databaseUrl, max: clients });
  const workspaceId = randomUUID();
  try {
    await pool.query(`
      create schema if not exists bench_ceiling;
      create table if not exists bench_ceiling.invoices (id uuid primary key, workspace_id uuid not null, status text not null, number text, updated_at timestamptz not null);
      create table if not exists bench_ceiling.number_series (workspace_id uuid, format text, period text, last_value bigint not null, primary key (workspace_id, format, period));
      create table if not exists bench_ceiling.outbox (id uuid primary key, subject text not null, envelope jsonb not null, created_at timestamptz not null default clock_timestamp(), published_at timestamptz);
      truncate bench_ceiling.invoices, bench_ceiling.number_series, bench_ceiling.outbox;`);
    const ids = Array.from({ length: ceilingRowsFor(seconds) }, () => randomUUID());
    await pool.query(`insert into bench_ceiling.invoices (id, workspace_id, status, updated_at) select unnest($1::uuid[]), $2, 'draft', now()`, [ids, workspaceId]);
    // Every client's connection open before the window, as the services' pools are.
    await Promise.all(Array.from({ length: clients }, () => pool.connect())).then((connections) => connections.forEach((connection) => connection.release()));
    let next = 0;
    return await driveMeasured(context, clients, seconds, () => ids[next++], async (id) => {
      const client = await pool.connect();
      try {
        await client.query('begin');
        await client.query('select id from bench_ceiling.invoices where id = $1 for update', [id]);
        const { rows } = await client.query(
          `insert into bench_ceiling.number_series as s values ($1, 'INV/{YYYY}/{SEQ:4}', '2026', 1)
           on conflict (workspace_id, format, period) do update set last_value = s.last_value + 1 returning last_value`,
          [workspaceId],
        );
        await client.query(`update bench_ceiling.invoices set status = 'open', number = $2, updated_at = now() where id = $1`, [id, `INV/2026/${rows[0].last_value}`]);
        await client.query(`insert into bench_ceiling.outbox (id, subject, envelope) values ($1, 'billing.invoice.finalized', $2)`, [randomUUID(), envelope]);
        await client.query('commit');
        return 200;
      } catch {
        await client.query('rollback').catch(() => {});
        return 500;
      } finally {
        client.release();
      }
    });
  } finally {
    await pool.query('drop schema if exists bench_ceiling cascade').catch(() => {});
    await pool.end();
  }
};

/** Waits until billing's relay has published every event so far, so earlier work does not compete with the next measurement. */
export const waitForQuietOutbox = async (databaseUrl: string): Promise<void> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const { rows } = await client.query<{ pending: string }>('select count(*) as pending from billing.outbox where published_at is null');
      if (Number(rows[0]?.pending) === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  } finally {
    await client.end();
  }
};

const medianRun = (runs: readonly Measured[]): Measured => ({
  perSecond: median(runs.map((run) => run.perSecond)),
  p50: median(runs.map((run) => run.p50)),
  p99: median(runs.map((run) => run.p99)),
  count: runs.reduce((sum, run) => sum + run.count, 0),
  succeeded: runs.reduce((sum, run) => sum + run.succeeded, 0),
  serverErrors: runs.reduce((sum, run) => sum + run.serverErrors, 0),
  otherFailures: runs.reduce((sum, run) => sum + run.otherFailures, 0),
  ranDry: runs.some((run) => run.ranDry),
  cpuPerRequest: medianCpu(runs.map((run) => run.cpuPerRequest)),
});

/**
 * Finalize throughput against clients for billing batched (its default), unbatched
 * (FINALIZE_BATCH_MAX=1) and the raw-SQL ceiling, alternating over rounds; today's lifecycle with
 * batching off; then the billing run with batching on.
 */
export const billingFinalize: BenchSection = {
  name: 'billing',
  services: ['catalog', 'billing'],
  run: async (context) => {
    const levels = context.settings.BENCH_FINALIZE_CLIENTS;
    const minted = await context.mintKey(`bench-billing-${randomUUID().slice(0, 8)}`, 'all');
    const failures: FailureLog = new Map();
    const call = api(context, minted.key, failures);
    await must(call('PATCH', '/api/v1/account', { business_name: 'Benchmark Studio GmbH', default_currency: 'EUR', address: { city: 'Köln', country: 'DE' } }), 'account');
    const customer = await must(call('POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH', address: { city: 'Düsseldorf', country: 'DE' } }), 'customer');
    const product = await must(call('POST', '/api/v1/products', { name: 'Design workshop' }), 'product');
    const price = await must(call('POST', '/api/v1/prices', { product: product.id, unit_amount: 150_000, currency: 'EUR', tax_rate: 19 }), 'price');
    const items = [
      { price: price.id, quantity: 2, discount: { percent_off: 12.5 } },
      { description: 'Travel expenses', unit_amount: 42_500, tax_rate: 7 },
      { description: 'Licence, 12 months', quantity: 3, unit_amount: 9_900, tax_rate: 8.5 },
    ];
    const template = await must(call('POST', '/api/v1/invoices', { customer: customer.id, items }), 'create');
    const templateId = parsePublicId('invoice', template.id)!;
    const envelope = JSON.stringify({ id: randomUUID(), type: 'billing.invoice.finalized', data: { object: template } });
    let serverErrors = 0;
    let otherFailures = 0;
    const tally = <R extends Run>(run: R): R => {
      serverErrors += run.serverErrors;
      otherFailures += run.otherFailures;
      return run;
    };

    let mode: Mode = 'batched';
    const switchTo = async (wanted: Mode) => {
      if (mode === wanted) return;
      await context.restartService('billing', MODES[wanted]);
      mode = wanted;
    };

    /** Finalizes through the gateway at `clients`, on fresh copies of the template draft: a warm-up, then the window. */
    const measureFinalize = async (clients: number, ceilingPerSecond: number): Promise<Measured> => {
      const seconds = context.durationSeconds + context.warmupSeconds;
      const drafts = await copyDraft(context.databaseUrl, templateId, draftsFor(ceilingPerSecond, seconds, clients), { newestAt: new Date() });
      await waitForQuietOutbox(context.databaseUrl);
      let next = 0;
      const take = () => drafts[next++];
      const finalize = async (id: string) => (await call('POST', `/api/v1/invoices/${id}/finalize`)).status;
      if (context.warmupSeconds > 0) tally(await drive(clients, context.warmupSeconds, take, finalize));
      return tally(await driveMeasured(context, clients, context.durationSeconds, take, finalize));
    };

    const lifecycle = async (): Promise<Measured> =>
      tally(
        await driveMeasured(context, LIFECYCLE_CLIENTS, context.durationSeconds, () => true, async () => {
          const created = await call('POST', '/api/v1/invoices', { customer: customer.id, items });
          if (created.status !== 201) return created.status;
          const finalized = await call('POST', `/api/v1/invoices/${created.json.data.id}/finalize`);
          if (finalized.status !== 200) return finalized.status;
          return (await call('POST', `/api/v1/invoices/${created.json.data.id}/pay`)).status;
        }),
      );

    const samples = { ceiling: new Map<number, Measured[]>(), batched: new Map<number, Measured[]>(), unbatched: new Map<number, Measured[]>() };
    const note = (kind: keyof typeof samples, clients: number, run: Measured) => samples[kind].set(clients, [...(samples[kind].get(clients) ?? []), run]);
    const lifecycles: Measured[] = [];
    for (let round = 1; round <= context.rounds; round += 1) {
      const ceilings = new Map<number, number>();
      for (const clients of levels) {
        context.progress(`round ${round} of ${context.rounds}, ${clients} clients: raw-SQL ceiling`);
        const ceiling = tally(await measureCeiling(context, clients, envelope));
        ceilings.set(clients, ceiling.perSecond);
        note('ceiling', clients, ceiling);
      }
      // Alternating which mode goes first, so drift over the run weighs on both alike, with one restart of billing per round.
      const order: Mode[] = round % 2 === 1 ? ['batched', 'unbatched'] : ['unbatched', 'batched'];
      for (const kind of order) {
        await switchTo(kind);
        for (const clients of levels) {
          context.progress(`round ${round} of ${context.rounds}, ${clients} clients: finalize through the gateway, ${kind}`);
          note(kind, clients, await measureFinalize(clients, ceilings.get(clients)!));
        }
        if (kind === 'unbatched') {
          context.progress(`round ${round} of ${context.rounds}: lifecycles (create → finalize → pay), ${LIFECYCLE_CLIENTS} clients, unbatched`);
          lifecycles.push(await lifecycle());
        }
      }
    }

    await switchTo('batched');
    const draftCount = context.settings.BENCH_BILLING_RUN_DRAFTS;
    context.progress(`billing run: ${draftCount} drafts of 3 lines created and finalized by ${RUN_CLIENTS} clients, batched`);
    await waitForQuietOutbox(context.databaseUrl);
    let started = 0;
    const billingRun = tally(
      await driveMeasured(context, RUN_CLIENTS, 24 * 3600, () => (started < draftCount ? started++ : undefined), async () => {
        const created = await call('POST', '/api/v1/invoices', { customer: customer.id, items });
        if (created.status !== 201) return created.status;
        return (await call('POST', `/api/v1/invoices/${created.json.data.id}/finalize`)).status;
      }),
    );

    const at = (kind: keyof typeof samples, clients: number) => {
      const runs = samples[kind].get(clients);
      return runs ? medianRun(runs) : undefined;
    };
    const rate = (kind: keyof typeof samples, clients: number) => at(kind, clients)?.perSecond ?? Number.NaN;
    const lifecycleRun = medianRun(lifecycles);

    const targets: TargetResult[] = [];
    const ratioTarget = (target: string, figure: number, baseline: number, min: number) =>
      targets.push({ target, figure: `${perSecond(figure)}/s`, baseline: `${perSecond(baseline)}/s`, ratio: times(figure / baseline), pass: figure / baseline >= min });
    if (levels.includes(32)) ratioTarget(`finalize batched >= ${TARGETS.minCeilingRatioAt32}x the raw-SQL ceiling, 32 clients`, rate('batched', 32), rate('ceiling', 32), TARGETS.minCeilingRatioAt32);
    if (levels.includes(8)) ratioTarget(`finalize batched >= ${TARGETS.minCeilingRatioAt8}x the raw-SQL ceiling, 8 clients`, rate('batched', 8), rate('ceiling', 8), TARGETS.minCeilingRatioAt8);
    if (levels.length > 1) {
      // Each level against the best below it, with 5% for the noise of one short window.
      const steps = levels.slice(1).map((clients, index) => rate('batched', clients) / Math.max(...levels.slice(0, index + 1).map((lower) => rate('batched', lower))));
      const worst = Math.min(...steps);
      targets.push({
        target: `finalize batched does not fall as clients go from ${levels[0]} to ${levels.at(-1)} (each level >= ${TARGETS.minStepRatio}x the best below it)`,
        figure: levels.map((clients) => `${clients}: ${perSecond(rate('batched', clients))}/s`).join(', '),
        baseline: 'the best lower level',
        ratio: `worst ${times(worst)}`,
        pass: worst >= TARGETS.minStepRatio,
      });
    }
    const cpuTarget = (target: string, figure: number | undefined, baseline: number | undefined, max: number) =>
      targets.push({ target, figure: micros(figure), baseline: micros(baseline), ratio: times((figure ?? Number.NaN) / (baseline ?? Number.NaN)), pass: (figure ?? Infinity) / (baseline ?? Number.NaN) <= max });
    if (levels.includes(32)) {
      const [batched, ceiling] = [at('batched', 32)?.cpuPerRequest, at('ceiling', 32)?.cpuPerRequest];
      cpuTarget(`CPU per batched finalize, all processes <= ${TARGETS.maxCpuToCeilingAt32}x the raw-SQL ceiling's, 32 clients`, batched?.[ALL], ceiling?.[ALL], TARGETS.maxCpuToCeilingAt32);
      cpuTarget(`billing's own CPU per batched finalize <= ${TARGETS.maxBillingCpuToCeilingAt32}x the ceiling's whole path, 32 clients`, batched?.['billing'], ceiling?.[ALL], TARGETS.maxBillingCpuToCeilingAt32);
    }
    if (levels.includes(32)) ratioTarget(`finalize batched >= ${TARGETS.minBatchedToUnbatchedAt32}x FINALIZE_BATCH_MAX=1, 32 clients`, rate('batched', 32), rate('unbatched', 32), TARGETS.minBatchedToUnbatchedAt32);
    ratioTarget(
      `billing run (${draftCount} drafts of 3 lines, created and finalized by ${RUN_CLIENTS} clients, batched) >= ${TARGETS.minRunToLifecycle}x today's lifecycle (${LIFECYCLE_CLIENTS} clients, FINALIZE_BATCH_MAX=1)`,
      billingRun.perSecond,
      lifecycleRun.perSecond,
      TARGETS.minRunToLifecycle,
    );

    const summary = (run: Measured | undefined) => (run ? `${perSecond(run.perSecond)} (${ms(run.p50)} / ${ms(run.p99)})` : '–');
    const throughputTable: Table = {
      title: `Finalize through the gateway against clients: batched, unbatched (FINALIZE_BATCH_MAX=1) and the raw-SQL ceiling (medians of ${context.rounds} round(s) of ${context.durationSeconds} s after ${context.warmupSeconds} s warm-up)`,
      columns: ['clients', 'ceiling/s (p50 / p99)', 'batched/s (p50 / p99)', 'unbatched/s (p50 / p99)', 'batched/ceiling', 'batched/unbatched', 'CPU per finalize: ceiling', 'batched', 'unbatched'],
      rows: levels.map((clients) => {
        const [ceiling, batched, unbatched] = (['ceiling', 'batched', 'unbatched'] as const).map((kind) => at(kind, clients));
        return [
          String(clients),
          summary(ceiling),
          `${summary(batched)}${batched?.ranDry ? ' (ran out of drafts)' : ''}`,
          `${summary(unbatched)}${unbatched?.ranDry ? ' (ran out of drafts)' : ''}`,
          times(rate('batched', clients) / rate('ceiling', clients)),
          times(rate('batched', clients) / rate('unbatched', clients)),
          micros(ceiling?.cpuPerRequest[ALL]),
          micros(batched?.cpuPerRequest[ALL]),
          micros(unbatched?.cpuPerRequest[ALL]),
        ];
      }),
      notes: [
        'The ceiling: raw SQL from this process, one transaction per finalize shaped like one (lock the invoice row, increment the series counter, update the invoice, insert the outbox row), on tables of its own in the same database.',
        'Batched: billing with its own FINALIZE_BATCH_MAX (group commit); unbatched: billing started again with FINALIZE_BATCH_MAX=1.',
        'Drafts to finalize are copies of one draft created through the API (3 lines), made with SQL in billing\'s tables before each measurement (bench/seed-invoices.ts).',
        'Throughput counts the finalizes that succeeded; latencies are of every request, failed ones included.',
        'CPU per finalize: utime + stime of every watched process (the services, PostgreSQL with all its backends, NATS, this process) over the measured window, divided by the finalizes completed; by process below.',
        'One workspace and one number series throughout, so every finalize contends for the same counter row. The load generator shares the machine with the services and PostgreSQL.',
      ],
    };
    const cpuLevel = levels.includes(32) ? 32 : levels.at(-1)!;
    const processes = [...new Set([...context.meter.names(), ...Object.keys(at('batched', cpuLevel)?.cpuPerRequest ?? {})])].filter((name) => name !== ALL);
    const cpuColumns: [string, Measured | undefined][] = [
      [`raw-SQL ceiling, ${cpuLevel} clients`, at('ceiling', cpuLevel)],
      [`finalize batched, ${cpuLevel} clients`, at('batched', cpuLevel)],
      [`finalize unbatched, ${cpuLevel} clients`, at('unbatched', cpuLevel)],
      [`lifecycle, ${LIFECYCLE_CLIENTS} clients, unbatched`, lifecycleRun],
      [`billing run, per invoice (create + finalize)`, billingRun],
    ];
    const cpuTable: Table = {
      title: 'CPU per operation by process (utime + stime from /proc over the measured windows, medians of the rounds)',
      columns: ['process', ...cpuColumns.map(([label]) => label)],
      rows: [...processes, ALL].map((name) => [name, ...cpuColumns.map(([, run]) => micros(run?.cpuPerRequest[name]))]),
      notes: ['The ceiling\'s work is SQL sent from this process, so its cost is PostgreSQL\'s and this process\'s; the services idle meanwhile.'],
    };
    const runTable: Table = {
      title: 'The billing run against today\'s lifecycle',
      columns: ['measurement', 'succeeded per second', 'p50', 'p99', 'attempted', 'succeeded', '5xx or failed', 'other non-2xx'],
      rows: [
        [`lifecycle (create → finalize → pay), ${LIFECYCLE_CLIENTS} clients, FINALIZE_BATCH_MAX=1`, perSecond(lifecycleRun.perSecond), ms(lifecycleRun.p50), ms(lifecycleRun.p99), String(lifecycleRun.count), String(lifecycleRun.succeeded), String(lifecycleRun.serverErrors), String(lifecycleRun.otherFailures)],
        [`billing run (create with 3 lines → finalize), ${RUN_CLIENTS} clients, batched`, perSecond(billingRun.perSecond), ms(billingRun.p50), ms(billingRun.p99), String(billingRun.count), String(billingRun.succeeded), String(billingRun.serverErrors), String(billingRun.otherFailures)],
      ],
      notes: [
        ...(otherFailures > 0 ? [`${otherFailures} requests answered 3xx or 4xx: the benchmark asked wrongly somewhere, and those figures count them as done.`] : []),
        ...[...failures].map(([what, count]) => `Not 2xx: ${what}, ${count} times.`),
        `Latency of a lifecycle is its three requests one after the other; of a billing-run invoice, its two. All ${serverErrors} 5xx or failed and ${otherFailures} other non-2xx answers of the section, warm-ups included, are in the report's totals.`],
    };
    const chart = renderLineChart({
      title: `Finalize throughput through the gateway (medians of ${context.rounds} round(s) of ${context.durationSeconds} s)`,
      xLabel: 'clients',
      yLabel: 'finalizes per second',
      xs: levels,
      series: [
        { name: 'batched', color: '#1f77b4', values: levels.map((clients) => rate('batched', clients)) },
        { name: 'FINALIZE_BATCH_MAX=1', color: '#d62728', values: levels.map((clients) => rate('unbatched', clients)) },
        { name: 'raw-SQL ceiling', color: '#555555', values: levels.map((clients) => rate('ceiling', clients)), dashed: true },
      ],
    });
    return {
      targets,
      serverErrors,
      tables: [throughputTable, cpuTable, runTable],
      files: [{ name: 'finalize-throughput.svg', content: chart, reference: '![Finalize throughput against clients](finalize-throughput.svg)' }],
    };
  },
};
