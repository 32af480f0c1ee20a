import { randomUUID } from 'node:crypto';
import { parsePublicId } from '@invoicing/contracts';
import pg from 'pg';
import { mark, micros, ms, times } from '../format.ts';
import { ALL, perRequest, type CpuSeconds } from '../process-meter.ts';
import { percentile, sumCpu } from '../samples.ts';
import { copyDraft } from '../seed-invoices.ts';
import type { BenchContext, BenchSection } from '../section.ts';

/** The issue's target: the page half-way down a workspace of 100,000 invoices costs at most 1.2x the first page. */
const TARGETS = { maxDeepToFirst: 1.2 };
const PAGE_SIZE = 100;
/** Requests of one kind in a row, each block its own CPU window, the kinds alternating. */
const BLOCK = 10;

interface Page {
  status: number;
  ids: string[];
  nextCursor: string | null;
}

const getPage = async (context: BenchContext, key: string, cursor: string | undefined): Promise<Page> => {
  try {
    const query = new URLSearchParams({ limit: String(PAGE_SIZE), ...(cursor ? { cursor } : {}) });
    const response = await fetch(`${context.gatewayUrl}/api/v1/invoices?${query}`, { headers: { authorization: `Bearer ${key}` } });
    const body = (await response.json()) as { data?: { id: string }[]; next_cursor?: string | null };
    return { status: response.status, ids: body.data?.map(({ id }) => id) ?? [], nextCursor: body.next_cursor ?? null };
  } catch {
    return { status: 0, ids: [], nextCursor: null };
  }
};

/**
 * GET /api/v1/invoices?limit=100 through the gateway: the first page against the page that starts
 * half-way down a workspace of BENCH_PAGES_INVOICES invoices, one request at a time, alternating.
 */
export const deepPages: BenchSection = {
  name: 'pages',
  services: ['catalog', 'billing'],
  run: async (context) => {
    const count = context.settings.BENCH_PAGES_INVOICES;
    const depth = Math.floor(count / 2 / PAGE_SIZE) * PAGE_SIZE;
    const minted = await context.mintKey(`bench-pages-${randomUUID().slice(0, 8)}`, 'all');
    const key = minted.key;
    const call = async (method: string, path: string, body: unknown) => {
      const response = await fetch(`${context.gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': randomUUID() },
        body: JSON.stringify(body),
      });
      const json = (await response.json()) as { data: { id: string } };
      if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
      return json.data;
    };
    await call('PATCH', '/api/v1/account', { business_name: 'Benchmark Studio GmbH', default_currency: 'EUR', address: { city: 'Köln', country: 'DE' } });
    const customer = await call('POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH', address: { city: 'Düsseldorf', country: 'DE' } });
    const template = await call('POST', '/api/v1/invoices', {
      customer: customer.id,
      items: [
        { description: 'Design workshop', quantity: 2, unit_amount: 150_000, tax_rate: 19, discount: { percent_off: 12.5 } },
        { description: 'Travel expenses', unit_amount: 42_500, tax_rate: 7 },
        { description: 'Licence, 12 months', quantity: 3, unit_amount: 9_900, tax_rate: 8.5 },
      ],
    });
    context.progress(`copying ${count - 1} invoices of 3 lines into one workspace with SQL`);
    const seeding = performance.now();
    await copyDraft(context.databaseUrl, parsePublicId('invoice', template.id)!, count - 1, { newestAt: new Date(Date.now() - 60_000) });
    const client = new pg.Client({ connectionString: context.databaseUrl });
    await client.connect();
    await client.query('analyze billing.invoices, billing.invoice_lines, billing.invoice_timeline').finally(() => client.end());
    const seedSeconds = (performance.now() - seeding) / 1000;

    context.progress(`walking ${depth / PAGE_SIZE} pages of ${PAGE_SIZE} down to row ${depth}`);
    let serverErrors = 0;
    let cursor: string | undefined;
    for (let walked = 0; walked < depth; walked += PAGE_SIZE) {
      const page = await getPage(context, key, cursor);
      if (page.status >= 500 || page.status === 0) serverErrors += 1;
      if (page.status !== 200 || !page.nextCursor) throw new Error(`page at row ${walked} answered ${page.status}${page.nextCursor ? '' : ' without a next cursor'}`);
      cursor = page.nextCursor;
    }
    const deepCursor = cursor!;

    const timings = { first: [] as number[], deep: [] as number[] };
    const cpu = { first: {} as CpuSeconds, deep: {} as CpuSeconds };
    const sample = async (kind: 'first' | 'deep', measured: boolean) => {
      const window = await context.meter.window(async () => {
        const taken: number[] = [];
        for (let i = 0; i < BLOCK; i++) {
          const started = performance.now();
          const page = await getPage(context, key, kind === 'deep' ? deepCursor : undefined);
          taken.push(performance.now() - started);
          if (page.status >= 500 || page.status === 0) serverErrors += 1;
          else if (page.status !== 200 || page.ids.length !== PAGE_SIZE) throw new Error(`the ${kind} page answered ${page.status} with ${page.ids.length} rows`);
        }
        return taken;
      });
      if (!measured) return;
      timings[kind].push(...window.value);
      sumCpu(cpu[kind], window.cpu);
    };
    context.progress('warming up');
    for (let i = 0; i < 2; i++) for (const kind of ['first', 'deep'] as const) await sample(kind, false);
    context.progress(`${context.settings.BENCH_PAGES_SAMPLES} requests of each page, alternating in blocks of ${BLOCK}`);
    const blocks = Math.ceil(context.settings.BENCH_PAGES_SAMPLES / BLOCK);
    for (let i = 0; i < blocks; i++) for (const kind of i % 2 === 0 ? (['first', 'deep'] as const) : (['deep', 'first'] as const)) await sample(kind, true);

    const first = percentile(timings.first, 50);
    const deep = percentile(timings.deep, 50);
    const ratio = deep / first;
    const firstCpu = perRequest(cpu.first, timings.first.length);
    const deepCpu = perRequest(cpu.deep, timings.deep.length);
    const processes = Object.keys(firstCpu).filter((name) => name !== ALL);
    return {
      serverErrors,
      targets: [
        {
          target: `invoice list page ${depth.toLocaleString('en-US')} rows deep (of ${count.toLocaleString('en-US')}) <= ${TARGETS.maxDeepToFirst}x the first page, median latency`,
          figure: ms(deep),
          baseline: ms(first),
          ratio: times(ratio),
          pass: ratio <= TARGETS.maxDeepToFirst,
        },
      ],
      tables: [
        {
          title: `GET /api/v1/invoices?limit=${PAGE_SIZE} through the gateway, ${count.toLocaleString('en-US')} invoices in one workspace, one request at a time`,
          columns: ['page', 'requests', 'p50', 'p99', 'CPU per request, all processes', 'of the first page'],
          rows: [
            ['first page', String(timings.first.length), ms(first), ms(percentile(timings.first, 99)), micros(firstCpu[ALL]), ''],
            [`the page ${depth.toLocaleString('en-US')} rows deep`, String(timings.deep.length), ms(deep), ms(percentile(timings.deep, 99)), micros(deepCpu[ALL]), `${times(ratio)} ${mark(ratio <= TARGETS.maxDeepToFirst)}`],
          ],
          notes: [
            `Target: the deep page's median at most ${TARGETS.maxDeepToFirst}x the first page's.`,
            `The invoices are drafts of 3 lines, copies of one created through the API, made with SQL in billing's tables in ${seedSeconds.toFixed(0)} s (bench/seed-invoices.ts), then ANALYZE; the deep cursor is the one the API gave after walking ${depth / PAGE_SIZE} pages.`,
            `CPU per request by process, first / deep: ${processes.map((name) => `${name} ${micros(firstCpu[name])} / ${micros(deepCpu[name])}`).join('; ')}.`,
          ],
        },
      ],
    };
  },
};
