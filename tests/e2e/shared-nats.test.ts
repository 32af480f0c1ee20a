import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { NatsServerProcess } from '@invoicing/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type TestSystem } from '../support/system.ts';

/**
 * Two deployments of the whole platform (each service its own process, each its own database) on
 * one NATS server, told apart by NATS_PREFIX only: each must see its own events and no other's.
 */
describe('two platforms on one NATS server', () => {
  let nats: NatsServerProcess;
  const platforms: Record<'alpha' | 'beta', TestSystem> = {} as never;
  const arrivals: { path: string; headers: Record<string, string>; body: string }[] = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    request.on('end', () => {
      arrivals.push({ path: request.url ?? '/', headers: request.headers as Record<string, string>, body });
      response.writeHead(200).end();
    });
  });
  let receiverUrl: string;

  beforeAll(async () => {
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
    nats = await NatsServerProcess.launch();
    const start = (prefix: string) =>
      startSystem({
        services: ['catalog', 'billing', 'notifications'],
        env: { NATS_URL: nats.url, NATS_PREFIX: prefix, WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '0,1,1' },
      });
    [platforms.alpha, platforms.beta] = await Promise.all([start('alpha'), start('beta')]);
  });
  afterAll(async () => {
    await Promise.all(Object.values(platforms).map((platform) => platform?.stop()));
    await nats?.dispose();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });

  /** In one platform: a webhook endpoint at `/<name>`, then an invoice created, finalized and paid. */
  const payOneInvoice = async (name: 'alpha' | 'beta') => {
    const platform = platforms[name];
    // The same workspace slug in both: only the prefix keeps them apart on the bus.
    const api = platform.client((await platform.mintKey('shared-slug', 'all')).key);
    const endpoint = await api.POST('/api/v1/webhook_endpoints', { body: { url: `${receiverUrl}/${name}`, enabled_events: ['invoice.paid'] } });
    const customer = await api.POST('/api/v1/customers', { body: { name: `Customer of ${name}` } });
    const created = await api.POST('/api/v1/invoices', {
      params: { header: { 'Idempotency-Key': randomUUID() } },
      body: { customer: customer.data!.data.id, currency: 'EUR', items: [{ description: 'Consulting', unit_amount: 10_000 }] },
    });
    const id = created.data!.data.id;
    await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
    const paid = await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
    expect(paid.response.status).toBe(200);
    return { invoiceId: id, secret: endpoint.data!.data.secret };
  };

  it('delivers each platform its own invoice.paid only, on prefixed streams', { timeout: 60_000 }, async () => {
    const [alpha, beta] = await Promise.all([payOneInvoice('alpha'), payOneInvoice('beta')]);
    const deadline = Date.now() + 20_000;
    while (arrivals.filter((arrival) => arrival.path === '/alpha').length < 1 || arrivals.filter((arrival) => arrival.path === '/beta').length < 1) {
      if (Date.now() > deadline) throw new Error(`webhooks did not arrive: ${arrivals.map((arrival) => arrival.path).join(', ')}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    // Time for a stray copy of the other platform's event to show up, had it crossed over.
    await new Promise((resolve) => setTimeout(resolve, 1_500));

    for (const [name, own] of [['alpha', alpha], ['beta', beta]] as const) {
      const received = arrivals.filter((arrival) => arrival.path === `/${name}`);
      const events = received.map((arrival) => new Webhook(own.secret!).verify(arrival.body, arrival.headers) as { type: string; data: { object: { id: string } } });
      expect(events.map((event) => [event.type, event.data.object.id])).toEqual([['invoice.paid', own.invoiceId]]);
    }
    const connection = await connect({ servers: nats.url });
    try {
      const streams = (await (await jetstreamManager(connection)).streams.names().next()).sort();
      expect(streams).toEqual(expect.arrayContaining(['alpha_BILLING', 'beta_BILLING']));
      expect(streams).not.toContain('BILLING');
    } finally {
      await connection.close();
    }
  });
});
