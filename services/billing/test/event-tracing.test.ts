import { startTracing } from '@invoicing/service-kit';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness } from './support/billing-harness.ts';

const exporter = new InMemorySpanExporter();
// Before the app is built: with tracing off, apps register no tracing hooks at all.
const stopTracing = startTracing('billing-test', {}, exporter);

let harness: BillingHarness;

beforeAll(async () => {
  harness = await startBillingHarness();
});

afterAll(async () => {
  await harness?.close();
  await stopTracing();
});

describe("events in their request's trace", () => {
  it('stores the trace context of the request with each outbox row, so the relay publishes the event in that trace', async () => {
    const api = workspaceClient(harness.service);
    const customer = (await catalogSeeder(harness, api.workspaceId).customer()).id;
    const created = await api.call('POST', '/api/v1/invoices', { customer, items: [{ description: 'Item', unit_amount: 100 }] });
    const id = created.body.data.id as string;
    expect((await api.call('POST', `/api/v1/invoices/${id}/finalize`)).status).toBe(200);
    expect((await api.call('POST', `/api/v1/invoices/${id}/pay`)).status).toBe(200);

    const rows = await harness.sql<{ subject: string; traceparent: string }>(
      `select subject, trace_context->>'traceparent' as traceparent from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`,
      [id],
    );
    // traceparent is version-traceId-parentSpanId-flags; the parent is the request's server span.
    const traceparentOf = (route: string) => {
      const span = exporter.getFinishedSpans().find((finished) => finished.name === `POST ${route}`)!.spanContext();
      return `00-${span.traceId}-${span.spanId}-01`;
    };
    expect(rows).toEqual([
      { subject: 'billing.invoice.created', traceparent: traceparentOf('/api/v1/invoices') },
      { subject: 'billing.invoice.finalized', traceparent: traceparentOf('/api/v1/invoices/:id/finalize') },
      { subject: 'billing.invoice.payment_recorded', traceparent: traceparentOf('/api/v1/invoices/:id/pay') },
      { subject: 'billing.invoice.paid', traceparent: traceparentOf('/api/v1/invoices/:id/pay') },
    ]);
  });
});
