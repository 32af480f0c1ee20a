import { randomUUID } from 'node:crypto';
import type { KeysetPosition } from '@invoicing/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { invoiceRepository, type InvoiceFilter } from '../src/modules/invoices/invoice.repository.ts';
import { startBillingHarness, type BillingHarness } from './support/billing-harness.ts';

const INVOICES = 100_000;
const DEPTH = 50_000;
const PAGE = 50;

interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/**
 * The invoice list 50,000 rows deep, against its first page, in a workspace of 100,000 invoices:
 * the keyset query must be bounded by an index in the list's order for each filter, so the deep
 * page reads (buffers) and costs about what the first one does.
 */
describe('deep pages of the invoice list', () => {
  let harness: BillingHarness;
  const workspaceId = randomUUID();
  const [customerA, customerB] = [randomUUID(), randomUUID()];

  beforeAll(async () => {
    harness = await startBillingHarness();
    // 60% paid, 20% open, 20% draft; 90% of them customer A's; one invoice a second.
    await harness.sql(
      `insert into billing.invoices (id, workspace_id, status, customer_id, customer_name, currency, collection_method, issue_date,
                                     subtotal, discount_total, taxable_amount, tax_total, total, amount_due, amount_paid,
                                     number, number_format, number_period, number_sequence, finalized_at, created_at, updated_at)
       select gen_random_uuid(), ?, s.status, case when i % 10 < 9 then ?::uuid else ?::uuid end, 'Customer', 'EUR', 'send_invoice', date '2026-01-01',
              100, 0, 100, 19, 119, case when s.status = 'open' then 119 else 0 end, case when s.status = 'paid' then 119 else 0 end,
              case when s.status <> 'draft' then 'S' || i end, case when s.status <> 'draft' then 'S' end, case when s.status <> 'draft' then '' end,
              case when s.status <> 'draft' then i end, case when s.status <> 'draft' then t end, t, t
         from generate_series(1, ?) as i,
              lateral (select timestamptz '2026-01-01' + i * interval '1 second' as t,
                              case when i % 5 < 3 then 'paid' when i % 5 = 3 then 'open' else 'draft' end as status) s`,
      [workspaceId, customerA, customerB, INVOICES],
    );
    await harness.sql('analyze billing.invoices');
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
  });

  const explain = async (filter: InvoiceFilter, position: KeysetPosition | undefined) => {
    const sql = invoiceRepository(harness.service.orm.em.fork()).pageNewestFirstSql(workspaceId, filter, position, PAGE);
    // Warm the cache first, so both pages are measured the same way.
    await harness.sql(sql);
    const [row] = await harness.sql<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(`explain (analyze, buffers, format json) ${sql}`);
    const { Plan: plan, 'Execution Time': ms } = row!['QUERY PLAN'][0];
    const text = await harness.sql<{ 'QUERY PLAN': string }>(`explain (analyze, buffers, costs off) ${sql}`);
    return { plan, ms, buffers: plan['Shared Hit Blocks'] + plan['Shared Read Blocks'], text: text.map((line) => line['QUERY PLAN']).join('\n') };
  };

  /** The position after row `DEPTH` of the list under `filter`: where the page 50,000 rows deep starts. */
  const positionAtDepth = async (filter: InvoiceFilter): Promise<KeysetPosition> => {
    const conditions = ['workspace_id = ?'];
    const params: unknown[] = [workspaceId];
    if (filter.customerId) (conditions.push('customer_id = ?'), params.push(filter.customerId));
    if (filter.status) (conditions.push('status = ?'), params.push(filter.status));
    const [row] = await harness.sql<{ created_at: Date; id: string }>(
      `select created_at, id from billing.invoices where ${conditions.join(' and ')} order by created_at desc, id desc offset ? limit 1`,
      [...params, DEPTH - 1],
    );
    return { created: row!.created_at, id: row!.id };
  };

  it.each([
    ['no filter', {}],
    ['status=paid', { status: 'paid' }],
    ['customer', { customerId: customerA }],
    ['customer and status=paid', { customerId: customerA, status: 'paid' }],
  ] as const)('%s: the page 50,000 rows deep reads within 1.2x the buffers of the first, through an index in list order', async (name, filterPart) => {
    const filter: InvoiceFilter = { today: '2026-11-22', ...filterPart };
    const first = await explain(filter, undefined);
    const deep = await explain(filter, await positionAtDepth(filter));
    console.info(`${name}: first page ${first.buffers} buffers ${first.ms.toFixed(3)} ms; 50,000 deep ${deep.buffers} buffers ${deep.ms.toFixed(3)} ms\n--- first\n${first.text}\n--- deep\n${deep.text}`);

    for (const { plan } of [first, deep]) {
      const nodes = nodesOf(plan);
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Sort');
      expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      // Which index the planner takes depends on how selective the filter is; any serves when it bounds the scan.
      expect(nodes.some((node) => node['Node Type'] === 'Index Scan')).toBe(true);
    }
    // A handful of pages either way: one page of rows may straddle one more index leaf and one more
    // heap page than another, wherever it falls, and that is no cost of depth.
    expect(deep.buffers).toBeLessThanOrEqual(Math.max(Math.ceil(first.buffers * 1.2), first.buffers + 2));
    // An offset scan would read every row before the page (hundreds of buffers), so this cannot pass by chance.
  });
});
