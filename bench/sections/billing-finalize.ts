import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { BenchContext, BenchSection } from '../section.ts';

/**
 * The targets: finalizes per second through the gateway at 8 clients at least 25% of what
 * the same database does with raw SQL transactions shaped like a finalize; p99 under 100 ms at 32
 * clients; no 5xx at all.
 */
const TARGETS = { minCeilingRatioAt8: 0.25, maxP99At32Ms: 100 };
const CLIENT_COUNTS = [8, 32] as const;
const LIFECYCLE_CLIENTS = 8;
/** Rows the SQL ceiling may use: more than any database here commits in the run. */
const ceilingRowsFor = (seconds: number) => 2_000 * seconds;
/** Drafts prepared for a level: the gateway cannot outrun the ceiling, so a little more than it leaves no client idle. */
const draftsFor = (ceilingPerSecond: number, seconds: number, clients: number) => Math.ceil(ceilingPerSecond * seconds * 1.2) + 2 * clients;

const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => `${value.toFixed(1)} ms`;

const percentile = (samples: readonly number[], p: number): number => {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

interface Run {
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
  serverErrors: number;
  otherFailures: number;
}

/**
 * `clients` loops, each doing `work` until `seconds` have passed or `next` runs dry; every call is
 * timed. `work` answers the HTTP status (0 for a network error).
 */
const drive = async <T>(clients: number, seconds: number, next: () => T | undefined, work: (item: T) => Promise<number>): Promise<Run> => {
  const durations: number[] = [];
  let serverErrors = 0;
  let otherFailures = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      for (let item = next(); item !== undefined && performance.now() < until; item = next()) {
        const begun = performance.now();
        const status = await work(item);
        durations.push(performance.now() - begun);
        if (status >= 500 || status === 0) serverErrors += 1;
        else if (status >= 300) otherFailures += 1;
      }
    }),
  );
  const elapsedSeconds = (performance.now() - started) / 1000;
  return { perSecond: durations.length / elapsedSeconds, p50: percentile(durations, 50), p99: percentile(durations, 99), count: durations.length, serverErrors, otherFailures };
};

const inParallel = async <T>(concurrency: number, count: number, work: (index: number) => Promise<T>): Promise<T[]> => {
  const results: T[] = [];
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < count) results.push(await work(next++));
  }));
  return results;
};

const api = (context: BenchContext, key: string) => async (method: string, path: string, body?: unknown): Promise<{ status: number; json: any }> => {
  try {
    const response = await fetch(`${context.gatewayUrl}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, json: await response.json().catch(() => undefined) };
  } catch {
    return { status: 0, json: undefined };
  }
};

const must = async (call: Promise<{ status: number; json: any }>, what: string) => {
  const { status, json } = await call;
  if (status >= 300) throw new Error(`${what} answered ${status}: ${JSON.stringify(json)}`);
  return json.data;
};

/**
 * The ceiling: what this database does at the same concurrency with nothing but SQL, in
 * transactions shaped like a finalize — lock the invoice row, increment the series counter, update
 * the invoice, insert the outbox row — on tables of its own, in a schema of its own.
 */
const measureCeiling = async (databaseUrl: string, clients: number, seconds: number, envelope: string): Promise<Run> => {
  const pool = new pg.Pool({ connectionString: databaseUrl, max: clients });
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
    let next = 0;
    return await drive(clients, seconds, () => ids[next++], async (id) => {
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

/** Waits until billing's relay has published every event the preparation made, so it does not compete with the measurement. */
const waitForQuietOutbox = async (databaseUrl: string): Promise<void> => {
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

/** Finalize through the gateway against its SQL ceiling at 8 and 32 clients, then full lifecycles. */
export const billingFinalize: BenchSection = {
  name: 'billing',
  services: ['catalog', 'billing'],
  run: async (context) => {
    const minted = await context.mintKey(`bench-billing-${randomUUID().slice(0, 8)}`, 'all');
    const call = api(context, minted.key);
    await must(call('PATCH', '/api/v1/account', { business_name: 'Benchmark Studio GmbH', default_currency: 'EUR', address: { city: 'Köln', country: 'DE' } }), 'account');
    const customer = await must(call('POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH', address: { city: 'Düsseldorf', country: 'DE' } }), 'customer');
    const product = await must(call('POST', '/api/v1/products', { name: 'Design workshop' }), 'product');
    const price = await must(call('POST', '/api/v1/prices', { product: product.id, unit_amount: 150_000, currency: 'EUR', tax_rate: 19 }), 'price');
    const items = [
      { price: price.id, quantity: 2, discount: { percent_off: 12.5 } },
      { description: 'Travel expenses', unit_amount: 42_500, tax_rate: 7 },
      { description: 'Licence, 12 months', quantity: 3, unit_amount: 9_900, tax_rate: 8.5 },
    ];
    const createDraft = () => must(call('POST', '/api/v1/invoices', { customer: customer.id, items }), 'create');
    const sample = await createDraft();
    const envelope = JSON.stringify({ id: randomUUID(), type: 'billing.invoice.finalized', data: { object: sample } });

    const rows: string[][] = [];
    const checks: boolean[] = [];
    let p99At32 = Number.NaN;
    let ceilingP99At32 = Number.NaN;
    let serverErrors = 0;
    for (const clients of CLIENT_COUNTS) {
      context.progress(`${clients} clients: SQL ceiling`);
      const ceiling = await measureCeiling(context.databaseUrl, clients, context.durationSeconds, envelope);
      const draftCount = draftsFor(ceiling.perSecond, context.durationSeconds, clients);
      context.progress(`${clients} clients: preparing ${draftCount} drafts`);
      const drafts: { id: string }[] = await inParallel(16, draftCount, () => createDraft());
      await waitForQuietOutbox(context.databaseUrl);
      context.progress(`${clients} clients: finalize through the gateway`);
      let next = 0;
      const finalize = await drive(clients, context.durationSeconds, () => drafts[next++], async (draft) => (await call('POST', `/api/v1/invoices/${draft.id}/finalize`)).status);
      const ratio = finalize.perSecond / ceiling.perSecond;
      serverErrors += finalize.serverErrors;
      if (clients === 8) checks.push(ratio >= TARGETS.minCeilingRatioAt8);
      if (clients === 32) {
        p99At32 = finalize.p99;
        ceilingP99At32 = ceiling.p99;
        checks.push(finalize.p99 < TARGETS.maxP99At32Ms);
      }
      rows.push([
        `finalize, ${clients} clients`,
        perSecond(ceiling.perSecond),
        ms(ceiling.p99),
        perSecond(finalize.perSecond),
        ms(finalize.p50),
        ms(finalize.p99),
        clients === 8 ? `${Math.round(ratio * 100)}% ${mark(ratio >= TARGETS.minCeilingRatioAt8)}` : `${Math.round(ratio * 100)}%`,
        String(finalize.serverErrors),
        `${finalize.count}${next > drafts.length ? ' (ran out of drafts)' : ''}`,
      ]);
    }

    context.progress(`${LIFECYCLE_CLIENTS} clients: create with 3 lines → finalize → pay`);
    const lifecycle = await drive(LIFECYCLE_CLIENTS, context.durationSeconds, () => true, async () => {
      const created = await call('POST', '/api/v1/invoices', { customer: customer.id, items });
      if (created.status !== 201) return created.status;
      const finalized = await call('POST', `/api/v1/invoices/${created.json.data.id}/finalize`);
      if (finalized.status !== 200) return finalized.status;
      return (await call('POST', `/api/v1/invoices/${created.json.data.id}/pay`)).status;
    });
    serverErrors += lifecycle.serverErrors;
    rows.push([`lifecycle, ${LIFECYCLE_CLIENTS} clients`, '', '', perSecond(lifecycle.perSecond), ms(lifecycle.p50), ms(lifecycle.p99), '', String(lifecycle.serverErrors), String(lifecycle.count)]);

    return {
      title: `Billing: finalizes through the gateway against raw SQL finalize-shaped transactions on the same database (${context.durationSeconds} s each), and full lifecycles`,
      columns: ['measurement', 'SQL ceiling/s', 'ceiling p99', 'gateway/s', 'p50', 'p99', 'of ceiling', '5xx', 'requests'],
      rows,
      notes: [
        `Targets: at 8 clients >= ${TARGETS.minCeilingRatioAt8 * 100}% of the ceiling (${mark(checks[0] ?? false)}); p99 at 32 clients < ${TARGETS.maxP99At32Ms} ms (${ms(p99At32)}, ${mark(checks[1] ?? false)}); zero 5xx (${serverErrors}, ${mark(serverErrors === 0)}).`,
        `The SQL ceiling itself, at 32 clients, has a p99 of ${ms(ceilingP99At32)} (${ceilingP99At32 < TARGETS.maxP99At32Ms ? 'under' : 'not under'} ${TARGETS.maxP99At32Ms} ms): every finalize of the workspace queues on one counter row.`,
        'A lifecycle is create (3 lines: one from the catalog, two ad hoc) → finalize → pay, one request after the other; its latency is the three together.',
        'One workspace and one number series throughout, so every finalize contends for the same counter row. The load generator shares the machine with the services and PostgreSQL.',
      ],
    };
  },
};
