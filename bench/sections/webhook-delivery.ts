import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BenchContext, BenchSection } from '../section.ts';

/** The target: a pay's response to the receiver's arrival of its invoice.paid, p50. */
const TARGETS = { maxP50Ms: 100 };
const PAYS = 500;
const WARMUP_PAYS = 20;
const ENDPOINTS = 10;
const ARRIVAL_TIMEOUT_MS = 60_000;
// The first webhooks come within a second when events flow; none after this means they do not.
const WARMUP_TIMEOUT_MS = 15_000;

const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const ms = (value: number) => `${value.toFixed(1)} ms`;

const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const call = async <T>(context: BenchContext, key: string, method: string, path: string, body?: unknown): Promise<T> => {
  const response = await fetch(`${context.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data: T };
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json.data;
};

/**
 * A webhook receiver on loopback that notes when each delivery arrives: by invoice for
 * invoice.paid, and a count per path.
 */
const startReceiver = async () => {
  const paidAt = new Map<string, number>();
  let deliveries = 0;
  let lastAt = 0;
  const server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      const at = performance.now();
      deliveries += 1;
      lastAt = at;
      const event = JSON.parse(body) as { type: string; data: { object: { id: string } } };
      if (request.url === '/latency' && event.type === 'invoice.paid') paidAt.set(event.data.object.id, at);
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`,
    paidAt,
    deliveries: () => deliveries,
    lastAt: () => lastAt,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
};
type Receiver = Awaited<ReturnType<typeof startReceiver>>;

const waitUntil = async (condition: () => boolean, what: string, timeoutMs = ARRIVAL_TIMEOUT_MS): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) {
      throw new Error(`${what} did not arrive within ${timeoutMs / 1000} s. The services run as separate processes, so events need NATS: set NATS_URL.`);
    }
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

/** `count` finalized invoices ready to be paid. */
const openInvoices = async (context: BenchContext, key: string, count: number): Promise<string[]> => {
  const customer = await call<{ id: string }>(context, key, 'POST', '/api/v1/customers', { name: 'Webhook Bench GmbH' });
  const ids: string[] = [];
  for (let n = 0; n < count; n += 1) {
    const draft = await call<{ id: string }>(context, key, 'POST', '/api/v1/invoices', {
      customer: customer.id,
      currency: 'EUR',
      items: [{ description: 'Consulting', quantity: 3, unit_amount: 12_500, tax_rate: 19 }],
    });
    await call(context, key, 'POST', `/api/v1/invoices/${draft.id}/finalize`);
    ids.push(draft.id);
  }
  return ids;
};

/** Pays each invoice in turn; returns, per invoice, the milliseconds from the pay response to the webhook's arrival. */
const payAndTime = async (context: BenchContext, key: string, receiver: Receiver, invoices: readonly string[], timeoutMs?: number): Promise<number[]> => {
  const answeredAt = new Map<string, number>();
  for (const id of invoices) {
    await call(context, key, 'POST', `/api/v1/invoices/${id}/pay`, {});
    answeredAt.set(id, performance.now());
  }
  await waitUntil(() => invoices.every((id) => receiver.paidAt.has(id)), `invoice.paid for all ${invoices.length} pays`, timeoutMs);
  return invoices.map((id) => receiver.paidAt.get(id)! - answeredAt.get(id)!);
};

/** Deliveries per second while every endpoint has the invoice.paid events since `since` replayed to it at once. */
const replayThroughput = async (context: BenchContext, key: string, receiver: Receiver, endpoints: readonly string[], since: string): Promise<number> => {
  const before = receiver.deliveries();
  const started = performance.now();
  let queued = 0;
  await Promise.all(
    endpoints.map(async (id) => {
      queued += (await call<{ event_count: number }>(context, key, 'POST', `/api/v1/webhook_endpoints/${id}/replay`, { since, types: ['invoice.paid'] })).event_count;
    }),
  );
  await waitUntil(() => receiver.deliveries() - before >= queued, `${queued} replayed deliveries`);
  return queued / ((receiver.lastAt() - started) / 1000);
};

/** Pay → signed webhook at a loopback receiver, through the gateway, billing's outbox, NATS and notifications. */
export const webhookDelivery: BenchSection = {
  name: 'webhooks',
  services: ['catalog', 'billing', 'notifications'],
  env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' },
  run: async (context) => {
    // A workspace of its own: endpoints left by an earlier run would receive this run's events too.
    const { key } = await context.mintKey(`bench-webhooks-${randomUUID().slice(0, 8)}`, 'all');
    const receiver = await startReceiver();
    try {
      await call(context, key, 'POST', '/api/v1/webhook_endpoints', { url: receiver.url('/latency'), enabled_events: ['invoice.paid'] });
      context.progress(`finalizing ${WARMUP_PAYS + PAYS} invoices to pay`);
      const since = new Date().toISOString();
      const invoices = await openInvoices(context, key, WARMUP_PAYS + PAYS);
      context.progress(`warm-up: ${WARMUP_PAYS} pays`);
      await payAndTime(context, key, receiver, invoices.slice(0, WARMUP_PAYS), WARMUP_TIMEOUT_MS);
      context.progress(`${PAYS} pays, one at a time`);
      const latencies = await payAndTime(context, key, receiver, invoices.slice(WARMUP_PAYS));

      context.progress(`${ENDPOINTS} endpoints, the run's ${WARMUP_PAYS + PAYS} invoice.paid events replayed to each`);
      const endpoints: string[] = [];
      for (let n = 0; n < ENDPOINTS; n += 1) {
        endpoints.push((await call<{ id: string }>(context, key, 'POST', '/api/v1/webhook_endpoints', { url: receiver.url(`/fanout/${n}`), enabled_events: ['invoice.paid'] })).id);
      }
      const perSecond = await replayThroughput(context, key, receiver, endpoints, since);

      const p50 = percentile(latencies, 50);
      const p99 = percentile(latencies, 99);
      return {
        serverErrors: 0,
        targets: [],
        tables: [
          {
            title: `Webhooks: pay response → signed invoice.paid at a loopback receiver (${PAYS} pays, one at a time, after ${WARMUP_PAYS} warm-up)`,
            columns: ['measure', 'value', 'target'],
            rows: [
              ['pay → arrival p50', ms(p50), `< ${TARGETS.maxP50Ms} ms ${mark(p50 < TARGETS.maxP50Ms)}`],
              ['pay → arrival p99', ms(p99), ''],
              ['pay → arrival max', ms(Math.max(...latencies)), ''],
              [`deliveries/s, ${ENDPOINTS} endpoints`, Math.round(perSecond).toLocaleString('en-US'), ''],
            ],
            notes: [
              'Path: gateway → billing (commit, outbox) → NATS JetStream → notifications (event + deliveries in one transaction) → worker (claim, sign, POST).',
              `Deliveries/s: ${ENDPOINTS} endpoints each replayed every invoice.paid of the run at once, counted until the last arrival.`,
              'The receiver answers at once; the load generator, the services, NATS and PostgreSQL share the machine.',
            ],
          },
        ],
      };
    } finally {
      await receiver.close();
    }
  },
};
