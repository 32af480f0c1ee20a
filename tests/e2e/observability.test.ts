import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type TestSystem } from '../support/system.ts';

interface LogLine {
  service: string;
  fields: Record<string, unknown>;
}

let system: TestSystem;
const logLines: LogLine[] = [];
const arrivals: string[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  request.on('end', () => {
    arrivals.push(body);
    response.writeHead(200).end();
  });
});
let receiverUrl: string;

const collectLine = (service: string, line: string) => {
  try {
    logLines.push({ service, fields: JSON.parse(line) as Record<string, unknown> });
  } catch {
    // Not a pino line (a runtime warning): nothing a test looks for.
  }
};

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  system = await startSystem({ env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1' }, ownNats: true, logLevel: 'info', onLogLine: collectLine });
});

afterAll(async () => {
  await system?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const waitFor = async <T>(find: () => T | undefined, what: string, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = find();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

const scrape = async (service: string): Promise<string> => {
  const response = await fetch(`${system.urls[service]}/metrics`);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
  return response.text();
};

describe('observability after an invoice lifecycle', () => {
  let payRequestId: string;
  let workspaceId: string;

  beforeAll(async () => {
    const { key } = await system.mintKey('observed-co', 'all');
    const api = system.client(key);
    expect((await api.POST('/api/v1/webhook_endpoints', { body: { url: `${receiverUrl}/hooks`, enabled_events: ['invoice.paid'] } })).response.status).toBe(201);
    const customer = await api.POST('/api/v1/customers', { body: { name: 'Observed GmbH' } });
    const invoice = await api.POST('/api/v1/invoices', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { customer: customer.data!.data.id, currency: 'EUR', items: [{ description: 'Audit', unit_amount: 50_000, quantity: 1 }] },
    });
    const id = invoice.data!.data.id;
    expect((await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } })).response.status).toBe(200);
    const pdf = await api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'arrayBuffer' });
    expect(pdf.response.status).toBe(200);
    const paid = await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } }, body: {} });
    expect(paid.response.status).toBe(200);
    payRequestId = paid.response.headers.get('x-request-id')!;
    await waitFor(() => (arrivals.some((body) => body.includes('"invoice.paid"')) ? true : undefined), 'the invoice.paid webhook');
    const gatewayLine = await waitFor(
      () => logLines.find(({ service, fields }) => service === 'gateway' && fields.request_id === payRequestId && fields.msg === 'request completed'),
      "the gateway's line for the payment",
    );
    workspaceId = String(gatewayLine.fields.workspace_id);
  });

  it("logs the paid invoice's webhook delivery under the pay request's id and its workspace", async () => {
    const delivery = await waitFor(
      () => logLines.find(({ service, fields }) => service === 'notifications' && fields.msg === 'webhook delivery attempted' && fields.event_type === 'invoice.paid'),
      "the delivery's log line",
    );
    expect(delivery.fields).toMatchObject({ level: 30, request_id: payRequestId, workspace_id: workspaceId, outcome: 'delivered', status_code: 200 });
    expect(workspaceId).toMatch(/^[0-9a-f-]{36}$/);
  });

  it("carries the request id and workspace id on billing's lines of the payment", () => {
    const billingLines = logLines.filter(({ service, fields }) => service === 'billing' && fields.request_id === payRequestId);
    expect(billingLines.length).toBeGreaterThan(0);
    for (const { fields } of billingLines) expect(fields.workspace_id).toBe(workspaceId);
  });

  it('shows request latency by route on every service, and each service its own gauges', async () => {
    const expected: Record<string, string[]> = {
      gateway: ['method="POST",route="/api/v1/invoices/:id/pay",status_code="200"'],
      catalog: ['route="/api/v1/customers"'],
      billing: ['route="/api/v1/invoices/:id/pay"', 'outbox_pending_events{service="billing"}', 'outbox_oldest_pending_age_seconds{service="billing"}'],
      documents: ['outbox_pending_events{service="documents"}', 'pdf_render_duration_seconds_count{service="documents"}'],
      notifications: ['webhook_deliveries_pending{service="notifications"} 0'],
    };
    for (const [service, names] of Object.entries(expected)) {
      const text = await scrape(service);
      expect(text, service).toContain('process_cpu_user_seconds_total');
      expect(text, service).toContain('http_request_duration_seconds_bucket');
      for (const name of names) expect(text, service).toContain(name);
      // Route patterns, never raw ids: one series per route, not per invoice.
      expect(text, service).not.toMatch(/route="[^"]*\/(inv|cus)_/);
    }
    expect(await scrape('documents')).not.toMatch(/pdf_render_duration_seconds_count\{service="documents"\} 0\n/);
  });
});
