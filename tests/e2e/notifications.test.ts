import { randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

interface Arrival {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

let system: TestSystem;
const arrivals: Arrival[] = [];
const receiver = createServer((request, response) => {
  let body = '';
  request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
  request.on('end', () => {
    arrivals.push({ path: request.url ?? '/', headers: request.headers, body, at: Date.now() });
    response.writeHead(200).end();
  });
});
let receiverUrl: string;

beforeAll(async () => {
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  system = await startSystem({
    services: ['catalog', 'billing', 'notifications'],
    env: { WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,1,1' },
    ownNats: true,
  });
});

afterAll(async () => {
  await system?.stop();
  receiver.closeAllConnections();
  await new Promise((resolve) => receiver.close(resolve));
});

const at = (path: string) => arrivals.filter((arrival) => arrival.path === path);

const waitFor = async (condition: () => boolean, what: string, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`${what} did not arrive within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};

/** The payload of a webhook that verifies with `secret` under the Standard Webhooks library. */
const verified = (arrival: Arrival, secret: string) =>
  new Webhook(secret).verify(arrival.body, {
    'webhook-id': String(arrival.headers['webhook-id']),
    'webhook-timestamp': String(arrival.headers['webhook-timestamp']),
    'webhook-signature': String(arrival.headers['webhook-signature']),
  }) as { id: string; type: string; data: { object: { id: string; status: string; number: string | null } } };

/** A workspace with a customer and an open (finalized) invoice; returns the invoice id. */
const openInvoice = async (api: ApiClient): Promise<string> => {
  const customer = await api.POST('/api/v1/customers', { body: { name: 'Müller GmbH' } });
  const invoice = await api.POST('/api/v1/invoices', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { customer: customer.data!.data.id, currency: 'EUR', items: [{ description: 'Consulting', unit_amount: 12_000, quantity: 2 }] },
  });
  expect(invoice.response.status).toBe(201);
  const id = invoice.data!.data.id;
  const finalized = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
  expect(finalized.response.status).toBe(200);
  return id;
};

const subscribe = async (api: ApiClient, path: string, enabledEvents: ('invoice.paid' | 'invoice.voided' | '*')[]) => {
  const created = await api.POST('/api/v1/webhook_endpoints', { body: { url: `${receiverUrl}${path}`, enabled_events: enabledEvents } });
  expect(created.response.status).toBe(201);
  return created.data!.data;
};

describe('webhooks through the gateway', () => {
  it('pay and void reach the receiver as signed invoice.paid and invoice.voided with the invoice, listed in the event log', async () => {
    const { key } = await system.mintKey('webhooks-co', 'all');
    const api = system.client(key);
    const endpoint = await subscribe(api, '/acme', ['invoice.paid', 'invoice.voided']);
    const toPay = await openInvoice(api);
    const toVoid = await openInvoice(api);

    const paid = await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: toPay }, header: { 'Idempotency-Key': randomUUID() } }, body: {} });
    expect(paid.response.status).toBe(200);
    const voided = await api.POST('/api/v1/invoices/{id}/void', {
      params: { path: { id: toVoid }, header: { 'Idempotency-Key': randomUUID() } },
      body: { reason: 'duplicate' },
    });
    expect(voided.response.status).toBe(200);

    await waitFor(() => at('/acme').length >= 2, 'invoice.paid and invoice.voided');
    const events = at('/acme').map((arrival) => verified(arrival, endpoint.secret));
    const paidEvent = events.find((event) => event.type === 'invoice.paid');
    const voidedEvent = events.find((event) => event.type === 'invoice.voided');
    expect(paidEvent?.data.object).toMatchObject({ id: toPay, status: 'paid', number: paid.data!.data.number, lines: { object: 'list' } });
    expect(voidedEvent?.data.object).toMatchObject({ id: toVoid, status: 'void', void_reason: 'duplicate' });
    expect(events).toHaveLength(2);

    const log = await api.GET('/api/v1/events', { params: { query: { type: 'invoice.paid' } } });
    expect(log.data?.data).toEqual([paidEvent]);
    const attempts = await api.GET('/api/v1/events/{id}/deliveries', { params: { path: { id: paidEvent!.id } } });
    expect(attempts.data?.data).toMatchObject([{ endpoint: endpoint.id, status_code: 200, succeeded: true, attempt: 1 }]);
  });

  it("keeps each workspace's events to its own endpoints", async () => {
    const a = system.client((await system.mintKey('webhooks-a', 'all')).key);
    const b = system.client((await system.mintKey('webhooks-b', 'all')).key);
    await subscribe(a, '/a', ['*']);
    await subscribe(b, '/b', ['*']);
    const invoice = await openInvoice(a);
    await a.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: invoice }, header: { 'Idempotency-Key': randomUUID() } }, body: {} });

    await waitFor(() => at('/a').some((arrival) => arrival.body.includes('"invoice.paid"')), "workspace A's invoice.paid");
    expect(at('/b')).toEqual([]);
    expect((await b.GET('/api/v1/events', {})).data?.data).toEqual([]);
  });

  it('refuses a private address, and needs webhooks:write to manage endpoints', async () => {
    const api = system.client((await system.mintKey('webhooks-rules', 'all')).key);
    expectProblem(await api.POST('/api/v1/webhook_endpoints', { body: { url: 'https://10.1.2.3/hooks', enabled_events: ['*'] } }), 400, 'invalid_request');
    expectProblem(await api.POST('/api/v1/webhook_endpoints', { body: { url: 'https://169.254.169.254/', enabled_events: ['*'] } }), 400, 'invalid_request');
    const reader = system.client((await system.mintKey('webhooks-rules', 'webhooks:read')).key);
    expectProblem(await reader.POST('/api/v1/webhook_endpoints', { body: { url: `${receiverUrl}/x`, enabled_events: ['*'] } }), 403, 'forbidden');
    expect((await reader.GET('/api/v1/webhook_endpoints', {})).response.status).toBe(200);
  });
});
