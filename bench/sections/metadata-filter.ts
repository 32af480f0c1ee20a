import { randomUUID } from 'node:crypto';
import { parsePublicId } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit';
import pg from 'pg';
import { mark, micros, ms, times } from '../format.ts';
import { ALL, perRequest, type CpuSeconds } from '../process-meter.ts';
import { percentile, sumCpu } from '../samples.ts';
import type { BenchContext, BenchSection } from '../section.ts';

/** The issue's target: a page filtered by metadata costs at most 1.2x the unfiltered page, whether few or many rows match. */
const TARGETS = { maxFilteredToUnfiltered: 1.2 };
const PAGE_SIZE = 100;
/** Requests of one kind in a row, each block its own CPU window, the kinds taking turns. */
const BLOCK = 10;
const CHUNK = 10_000;

type Kind = 'unfiltered' | 'selective' | 'broad';
const KINDS: readonly Kind[] = ['unfiltered', 'selective', 'broad'];

/**
 * `count` copies of the customer `templateId` in its workspace, made with SQL in the catalog's
 * table (the columns read from the database, so one a migration adds is copied too), each with
 * metadata `{ order_id: "order-<n>", tier: "gold" | "silver" }`: an order id held by one customer,
 * a tier by every other one. Copy n is n milliseconds older than `newestAt`.
 */
const copyCustomer = async (databaseUrl: string, templateId: string, count: number, newestAt: Date): Promise<void> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ column_name: string }>(
      `select column_name from information_schema.columns
       where table_schema = 'catalog' and table_name = 'customers' and is_generated = 'NEVER' order by ordinal_position`,
    );
    // n numbers the copies from 1 (the template holds order-0): their order id, tier and age.
    const n = '(u.k + $4::int)';
    const replaced: Record<string, string> = {
      id: 'u.id',
      created: `$3::timestamptz - (${n} * interval '1 millisecond')`,
      metadata: `jsonb_build_object('order_id', 'order-' || ${n}, 'tier', case when ${n} % 2 = 0 then 'gold' else 'silver' end)`,
    };
    const columns = rows.map((row) => row.column_name);
    const select = columns.map((column) => replaced[column] ?? `t.${column}`).join(', ');
    for (let offset = 0; offset < count; offset += CHUNK) {
      const ids = Array.from({ length: Math.min(CHUNK, count - offset) }, () => newId());
      await client.query(
        `insert into catalog.customers (${columns.join(', ')})
         select ${select} from catalog.customers t, unnest($2::uuid[]) with ordinality as u (id, k)
         where t.id = $1`,
        [templateId, ids, newestAt.toISOString(), offset],
      );
    }
    await client.query('analyze catalog.customers');
  } finally {
    await client.end();
  }
};

interface Page {
  status: number;
  rows: number;
}

/**
 * GET /api/v1/customers?limit=100 through the gateway in a workspace of BENCH_METADATA_CUSTOMERS
 * customers with metadata: the unfiltered first page against the page filtered by a pair one
 * customer holds (the oldest, so no walk of the newest-first index finds it early) and by a pair
 * half of them hold, one request at a time, taking turns.
 */
export const metadataFilter: BenchSection = {
  name: 'metadata',
  services: ['catalog'],
  run: async (context) => {
    const count = context.settings.BENCH_METADATA_CUSTOMERS;
    const { key } = await context.mintKey(`bench-metadata-${randomUUID().slice(0, 8)}`, 'all');
    const response = await fetch(`${context.gatewayUrl}/api/v1/customers`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Müller & Söhne GmbH', address: { city: 'Düsseldorf', country: 'DE' }, metadata: { order_id: 'order-0', tier: 'gold' } }),
    });
    const template = ((await response.json()) as { data: { id: string } }).data;
    context.progress(`copying ${count - 1} customers with metadata into one workspace with SQL`);
    const seeding = performance.now();
    await copyCustomer(context.databaseUrl, parsePublicId('customer', template.id)!, count - 1, new Date(Date.now() - 60_000));
    const seedSeconds = (performance.now() - seeding) / 1000;

    const queries: Record<Kind, string> = {
      unfiltered: '',
      selective: `&metadata[order_id]=order-${count - 1}`,
      broad: '&metadata[tier]=gold',
    };
    const expectedRows: Record<Kind, number> = { unfiltered: PAGE_SIZE, selective: 1, broad: PAGE_SIZE };
    let serverErrors = 0;
    const getPage = async (kind: Kind): Promise<Page> => {
      try {
        const page = await fetch(`${context.gatewayUrl}/api/v1/customers?limit=${PAGE_SIZE}${queries[kind]}`, { headers: { authorization: `Bearer ${key}` } });
        const body = (await page.json()) as { data?: unknown[] };
        return { status: page.status, rows: body.data?.length ?? 0 };
      } catch {
        return { status: 0, rows: 0 };
      }
    };

    const timings: Record<Kind, number[]> = { unfiltered: [], selective: [], broad: [] };
    const cpu: Record<Kind, CpuSeconds> = { unfiltered: {}, selective: {}, broad: {} };
    const sample = async (kind: Kind, measured: boolean) => {
      const window = await context.meter.window(async () => {
        const taken: number[] = [];
        for (let i = 0; i < BLOCK; i++) {
          const started = performance.now();
          const page = await getPage(kind);
          taken.push(performance.now() - started);
          if (page.status >= 500 || page.status === 0) serverErrors += 1;
          else if (page.status !== 200 || page.rows !== expectedRows[kind]) throw new Error(`the ${kind} page answered ${page.status} with ${page.rows} rows`);
        }
        return taken;
      });
      if (!measured) return;
      timings[kind].push(...window.value);
      sumCpu(cpu[kind], window.cpu);
    };
    context.progress('warming up');
    for (let i = 0; i < 2; i++) for (const kind of KINDS) await sample(kind, false);
    context.progress(`${context.settings.BENCH_PAGES_SAMPLES} requests of each page, taking turns in blocks of ${BLOCK}`);
    const blocks = Math.ceil(context.settings.BENCH_PAGES_SAMPLES / BLOCK);
    for (let i = 0; i < blocks; i++) for (let k = 0; k < KINDS.length; k++) await sample(KINDS[(i + k) % KINDS.length]!, true);

    const median = (kind: Kind) => percentile(timings[kind], 50);
    const cpuOf = (kind: Kind) => perRequest(cpu[kind], timings[kind].length);
    const ratioOf = (kind: Kind) => median(kind) / median('unfiltered');
    const labels: Record<Kind, string> = {
      unfiltered: 'no filter',
      selective: `metadata[order_id]: 1 of ${count.toLocaleString('en-US')} matches (the oldest)`,
      broad: `metadata[tier]: half of them match`,
    };
    const processes = Object.keys(cpuOf('unfiltered')).filter((name) => name !== ALL);
    return {
      serverErrors,
      targets: (['selective', 'broad'] as const).map((kind) => ({
        target: `customer list filtered by metadata, ${kind} (${labels[kind]}) <= ${TARGETS.maxFilteredToUnfiltered}x the unfiltered page, median latency`,
        figure: ms(median(kind)),
        baseline: ms(median('unfiltered')),
        ratio: times(ratioOf(kind)),
        pass: ratioOf(kind) <= TARGETS.maxFilteredToUnfiltered,
      })),
      tables: [
        {
          title: `GET /api/v1/customers?limit=${PAGE_SIZE} through the gateway, ${count.toLocaleString('en-US')} customers with metadata in one workspace, one request at a time`,
          columns: ['filter', 'rows', 'requests', 'p50', 'p99', 'CPU per request, all processes', 'of the unfiltered page'],
          rows: KINDS.map((kind) => [
            labels[kind],
            String(expectedRows[kind]),
            String(timings[kind].length),
            ms(median(kind)),
            ms(percentile(timings[kind], 99)),
            micros(cpuOf(kind)[ALL]),
            kind === 'unfiltered' ? '' : `${times(ratioOf(kind))} ${mark(ratioOf(kind) <= TARGETS.maxFilteredToUnfiltered)}`,
          ]),
          notes: [
            `Target: each filtered page's median at most ${TARGETS.maxFilteredToUnfiltered}x the unfiltered page's.`,
            `The customers are copies of one created through the API, made with SQL in the catalog's table in ${seedSeconds.toFixed(0)} s, then ANALYZE; the filter is \`metadata @> …\` beside the workspace, served by the GIN index on (workspace_id, metadata jsonb_path_ops) when few rows match and by the newest-first index when many do.`,
            `CPU per request by process, ${KINDS.join(' / ')}: ${processes.map((name) => `${name} ${KINDS.map((kind) => micros(cpuOf(kind)[name])).join(' / ')}`).join('; ')}.`,
          ],
        },
      ],
    };
  },
};
