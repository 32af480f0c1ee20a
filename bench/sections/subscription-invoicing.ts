import { randomUUID } from 'node:crypto';
import pg from 'pg';
import { ms, perSecond, times } from '../format.ts';
import { ALL, perRequest } from '../process-meter.ts';
import type { BenchSection, TargetResult } from '../section.ts';
import type { Table } from '../table.ts';
import { api, driveMeasured, must, waitForQuietOutbox, type FailureLog } from './billing-finalize.ts';

const RUN_CLIENTS = 32;
/**
 * A period's invoice costs billing what a billing-run invoice costs (a keyed create with the same
 * lines, a keyed finalize in a group commit); the scheduler adds its own bookkeeping (the claim,
 * the stored request, the record of the period and its event). Issue 24 asks for the ratio; half
 * the billing run's rate is the floor held here.
 */
const MIN_RATIO_TO_BILLING_RUN = 0.5;

const query = async <T extends pg.QueryResultRow>(databaseUrl: string, text: string, params: unknown[] = []): Promise<T[]> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query<T>(text, params)).rows;
  } finally {
    await client.end();
  }
};

/**
 * Invoices generated per second for BENCH_SUBSCRIPTIONS subscriptions that all fall due at once
 * (each a monthly subscription of 3 recurring prices, so each invoice has 3 lines), against the
 * billing run in the same section: as many invoices of the same 3 lines, created and finalized
 * through the gateway by 32 clients with billing's group commit.
 */
export const subscriptionInvoicing: BenchSection = {
  name: 'subscriptions',
  services: ['catalog', 'billing', 'subscriptions'],
  env: { SUBSCRIPTION_SCHEDULER_INTERVAL_MS: '100', SUBSCRIPTION_SCHEDULER_CONCURRENCY: String(RUN_CLIENTS) },
  run: async (context) => {
    const count = context.settings.BENCH_SUBSCRIPTIONS;
    const minted = await context.mintKey(`bench-subscriptions-${randomUUID().slice(0, 8)}`, 'all');
    const failures: FailureLog = new Map();
    const call = api(context, minted.key, failures);
    await must(call('PATCH', '/api/v1/account', { business_name: 'Benchmark Studio GmbH', default_currency: 'EUR', timezone: 'UTC', address: { city: 'Köln', country: 'DE' } }), 'account');
    const customer = await must(call('POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH' }), 'customer');
    const product = await must(call('POST', '/api/v1/products', { name: 'Platform plan' }), 'product');
    const prices: { id: string }[] = [];
    for (const [unitAmount, taxRate] of [[4_900, 19], [1_500, 7], [990, 19]] as const) {
      prices.push(await must(call('POST', '/api/v1/prices', { product: product.id, unit_amount: unitAmount, currency: 'EUR', tax_rate: taxRate, type: 'recurring', recurring: { interval: 'month', interval_count: 1 } }), 'price'));
    }
    const today = new Date().toISOString().slice(0, 10);
    const nextMonth = new Date(Date.UTC(Number(today.slice(0, 4)), Number(today.slice(5, 7)), Number(today.slice(8, 10)) - 1)).toISOString().slice(0, 10);
    let serverErrors = 0;

    context.progress(`billing run: ${count} invoices of 3 lines created and finalized by ${RUN_CLIENTS} clients, batched`);
    await waitForQuietOutbox(context.databaseUrl);
    const items = prices.map((price) => ({ price: price.id, period: { start: today, end: nextMonth } }));
    let started = 0;
    const billingRun = await driveMeasured(context, RUN_CLIENTS, 24 * 3600, () => (started < count ? started++ : undefined), async () => {
      const created = await call('POST', '/api/v1/invoices', { customer: customer.id, items });
      if (created.status !== 201) return created.status;
      return (await call('POST', `/api/v1/invoices/${created.json.data.id}/finalize`)).status;
    });
    serverErrors += billingRun.serverErrors;

    // The subscriptions, made through the API to start tomorrow, so none is due while they are made.
    context.progress(`subscriptions: making ${count} monthly subscriptions of 3 prices`);
    const tomorrow = new Date(Date.parse(`${today}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
    let made = 0;
    const making = await driveMeasured(context, RUN_CLIENTS, 24 * 3600, () => (made < count ? made++ : undefined), async () =>
      (await call('POST', '/api/v1/subscriptions', { customer: customer.id, items: prices.map((price) => ({ price: price.id })), start_date: tomorrow })).status,
    );
    serverErrors += making.serverErrors;
    await waitForQuietOutbox(context.databaseUrl);
    const workspaceId = minted.workspace_id;
    // The day turns: every subscription starts today and is due now, all at once.
    context.progress(`subscriptions: ${count} due at once; the scheduler invoices them`);
    await query(context.databaseUrl, 'update subscriptions.subscription_items set effective_from = $2 where workspace_id = $1', [workspaceId, today]);
    const began = performance.now();
    await query(context.databaseUrl, 'update subscriptions.subscriptions set start_date = $2, next_action_at = now() where workspace_id = $1', [workspaceId, today]);
    const { value: invoiced, cpu } = await context.meter.window(async () => {
      const deadline = Date.now() + 30 * 60_000;
      for (;;) {
        const [row] = await query<{ done: string; refused: string }>(
          context.databaseUrl,
          `select (select count(*) from subscriptions.subscription_periods where workspace_id = $1 and finalized) as done,
                  (select count(*) from subscriptions.subscriptions where workspace_id = $1 and last_error is not null) as refused`,
          [workspaceId],
        );
        const done = Number(row?.done ?? 0);
        if (done + Number(row?.refused ?? 0) >= count || Date.now() > deadline) return { done, refused: Number(row?.refused ?? 0), seconds: (performance.now() - began) / 1000 };
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    });
    const subscriptionRate = invoiced.done / invoiced.seconds;
    const subscriptionCpu = perRequest(cpu, invoiced.done);
    const [invoiceCount] = await query<{ count: string }>(context.databaseUrl, 'select count(*) from billing.invoices where workspace_id = $1 and subscription_id is not null', [workspaceId]);

    const ratio = subscriptionRate / billingRun.perSecond;
    const targets: TargetResult[] = [
      {
        target: `invoices generated by ${count} due subscriptions (3 lines each) >= ${MIN_RATIO_TO_BILLING_RUN}x the billing run (${count} invoices of 3 lines, ${RUN_CLIENTS} clients, batched)`,
        figure: `${perSecond(subscriptionRate)}/s`,
        baseline: `${perSecond(billingRun.perSecond)}/s`,
        ratio: times(ratio),
        pass: ratio >= MIN_RATIO_TO_BILLING_RUN && invoiced.done === count && Number(invoiceCount?.count) === count,
      },
    ];
    const micros = (seconds: number | undefined) => (seconds === undefined ? '–' : `${Math.round(seconds * 1e6)} µs`);
    const table: Table = {
      title: 'Subscription invoicing against the billing run',
      columns: ['measurement', 'invoices per second', 'p50', 'p99', 'invoices', 'CPU per invoice, all processes', 'subscriptions', 'billing', 'postgres'],
      rows: [
        [
          `billing run: create (3 lines) → finalize, ${RUN_CLIENTS} clients, batched`,
          perSecond(billingRun.perSecond),
          ms(billingRun.p50),
          ms(billingRun.p99),
          String(billingRun.succeeded),
          micros(billingRun.cpuPerRequest[ALL]),
          '–',
          micros(billingRun.cpuPerRequest['billing']),
          micros(billingRun.cpuPerRequest['postgres (all processes)']),
        ],
        [
          `${count} subscriptions due at once, scheduler concurrency ${RUN_CLIENTS}`,
          perSecond(subscriptionRate),
          '–',
          '–',
          `${invoiced.done} (billing holds ${invoiceCount?.count ?? '?'}; ${invoiced.refused} refused)`,
          micros(subscriptionCpu[ALL]),
          micros(subscriptionCpu['subscriptions']),
          micros(subscriptionCpu['billing']),
          micros(subscriptionCpu['postgres (all processes)']),
        ],
      ],
      notes: [
        'The subscriptions are made through the API to start tomorrow; then one statement moves every start to today and makes it due now, as the turn of the day would. From then until each has its finalized invoice is the measured window.',
        'Each period\'s invoice is two keyed writes to billing (the draft with its lines and periods, the finalize, which billing batches in its group commit), with the scheduler\'s claim, stored request, record of the period and `subscription.updated` event around them.',
        `Making the subscriptions: ${perSecond(making.perSecond)}/s through the gateway (${RUN_CLIENTS} clients), not part of the figure.`,
        ...[...failures].map(([what, n]) => `Not 2xx: ${what}, ${n} times.`),
      ],
    };
    return { targets, serverErrors, tables: [table] };
  },
};
