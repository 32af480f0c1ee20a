import type { EventEnvelope } from '@invoicing/contracts';
import { connectJetStreamBus, type EventBus } from '@invoicing/service-kit';
import { NatsServerProcess, natsUrl } from '@invoicing/testing';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillingService } from '../src/service.ts';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';
import { asClients } from './support/as-clients.ts';

const jetStreamBus = (url: string, name: string, onError: (error: unknown) => void = () => {}) =>
  connectJetStreamBus({ url, name, replicas: 1, maxAgeMs: 3600_000, onError });

describe('concurrency', () => {
  let harness: BillingHarness;
  let bus: EventBus;
  let api: WorkspaceClient;
  let customer: string;

  const draft = async (client = api) => {
    const response = await client.call('POST', '/api/v1/invoices', { customer, items: [{ description: 'Item', unit_amount: 2_500, tax_rate: 20 }] });
    expect(response.status).toBe(201);
    return response.body.data.id as string;
  };

  beforeAll(async () => {
    bus = await jetStreamBus(natsUrl(), 'billing-concurrency-test');
    harness = await startBillingHarness({ bus, env: { DATABASE_POOL_SIZE: '20' } });
    api = workspaceClient(harness.service);
    customer = (await catalogSeeder(harness, api.workspaceId).customer()).id;
  });
  afterAll(async () => {
    await harness?.close();
    await bus?.close();
  });

  it('1,000 drafts finalized by 50 concurrent clients get INV/2026/0001..1000: no gap, no duplicate, an intact chain', async () => {
    const ids = await asClients(25, Array.from({ length: 1_000 }), () => draft());
    const started = Date.now();
    const responses = await asClients(50, ids, (id) => api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `fin-${id}` }));
    const elapsedMs = Date.now() - started;
    expect(responses.filter((r) => r.status !== 200)).toEqual([]);
    const numbers = responses.map((r) => r.body.data.number as string).sort();
    expect(numbers).toEqual(Array.from({ length: 1_000 }, (_, i) => `INV/2026/${String(i + 1).padStart(4, '0')}`));
    const report = (await api.call('GET', '/api/v1/numbering')).body.data;
    expect(report).toMatchObject({ gap_free: true, next_number: 'INV/2026/1001', series: [{ issued: 1_000, last_sequence: 1_000, gaps: [] }] });
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true, invoices_checked: 1_000 });
    console.info(`1,000 finalizes by 50 clients in ${elapsedMs} ms (${Math.round(1_000_000 / elapsedMs)}/s, in-process inject, catalog over HTTP)`);
  }, 120_000);

  it('50 concurrent finalizes of one draft assign one number, and all 50 answer 200 with it', async () => {
    const client = workspaceClient(harness.service);
    customer = (await catalogSeeder(harness, client.workspaceId).customer()).id;
    const id = await draft(client);
    const responses = await Promise.all(Array.from({ length: 50 }, (_, i) => client.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `race-${i}` })));
    expect(responses.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(new Set(responses.map((r) => r.body.data.number))).toEqual(new Set(['INV/2026/0001']));
    const events = await harness.sql(`select 1 from billing.outbox where subject = 'billing.invoice.finalized' and envelope->'data'->'object'->>'id' = ?`, [id]);
    expect(events).toHaveLength(1);
    expect((await client.call('GET', '/api/v1/numbering')).body.data.series[0]).toMatchObject({ issued: 1, last_sequence: 1 });
  });

  it('20 concurrent pays with different keys: one 200, nineteen 409, exactly one billing.invoice.paid on JetStream', async () => {
    const client = workspaceClient(harness.service);
    customer = (await catalogSeeder(harness, client.workspaceId).customer()).id;
    const id = await draft(client);
    await client.call('POST', `/api/v1/invoices/${id}/finalize`);
    const responses = await Promise.all(Array.from({ length: 20 }, (_, i) => client.call('POST', `/api/v1/invoices/${id}/pay`, { payment_reference: `ref-${i}` }, { 'x-idempotency-key': `pay-${i}` })));
    expect(responses.map((r) => r.status).sort()).toEqual([200, ...Array(19).fill(409)]);
    expect(responses.filter((r) => r.status === 409).every((r) => r.body.code === 'invalid_state')).toBe(true);

    await expect.poll(async () => (await harness.service.relay.lag()).pending, { timeout: 20_000 }).toBe(0);
    // Read the whole paid subject of the stream with a fresh durable consumer, until it has nothing pending.
    const durable = `paid-count-${client.workspaceId}`;
    const seen: EventEnvelope[] = [];
    await bus.subscribe({ durable, subject: 'billing.invoice.paid', handle: async (envelope) => void seen.push(envelope) });
    const nc = await connect({ servers: natsUrl() });
    try {
      const jsm = await jetstreamManager(nc);
      await expect
        .poll(async () => {
          const info = await jsm.consumers.info('BILLING', durable);
          return info.num_pending === 0 && info.num_ack_pending === 0 && info.delivered.stream_seq >= info.ack_floor.stream_seq;
        }, { timeout: 20_000 })
        .toBe(true);
    } finally {
      await nc.close();
    }
    const ours = seen.filter((envelope) => (envelope.data as { object: { id: string } }).object.id === id);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({ type: 'billing.invoice.paid', workspace_id: client.workspaceId, idempotency_key: expect.stringMatching(/^pay-/) });
  }, 60_000);
});

describe('outbox across a NATS outage', () => {
  let harness: BillingHarness;
  let nats: NatsServerProcess;
  let bus: EventBus;
  let service: BillingService;

  beforeAll(async () => {
    nats = await NatsServerProcess.launch();
    bus = await jetStreamBus(nats.url, 'billing-outage-test');
    harness = await startBillingHarness({ bus });
    service = harness.service;
  });
  afterAll(async () => {
    await harness?.close();
    await bus?.close();
    await nats?.dispose();
  });

  it('delivers every committed event although NATS stops and starts during the run, and the API keeps answering', async () => {
    const received = new Set<string>();
    await bus.subscribe({ durable: 'outage-test', subject: 'billing.>', handle: async (envelope) => void received.add(envelope.id) });
    const api = workspaceClient(service);
    const customer = (await catalogSeeder(harness, api.workspaceId).customer()).id;
    const lifecycle = async (i: number) => {
      const created = await api.call('POST', '/api/v1/invoices', { customer, items: [{ description: `n${i}`, unit_amount: 100 }] });
      const finalized = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`);
      const paid = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/pay`);
      return [created.status, finalized.status, paid.status];
    };

    const statuses = await asClients(5, Array.from({ length: 20 }), (_, i) => lifecycle(i));
    await nats.stop();
    statuses.push(...(await asClients(5, Array.from({ length: 20 }), (_, i) => lifecycle(20 + i))));
    await nats.start();
    statuses.push(...(await asClients(5, Array.from({ length: 20 }), (_, i) => lifecycle(40 + i))));
    expect(statuses.flat().every((status) => status === 200 || status === 201)).toBe(true);

    const committed = (await harness.sql<{ id: string }>('select id from billing.outbox')).map((row) => row.id);
    // Per lifecycle: created, finalized, payment_recorded and paid.
    expect(committed).toHaveLength(240);
    await expect.poll(() => committed.filter((id) => !received.has(id)).length, { timeout: 60_000, interval: 200 }).toBe(0);
    // The subscriber can see an event before the relay has recorded its publication: wait for that too.
    await expect.poll(async () => (await service.relay.lag()).pending, { timeout: 10_000, interval: 100 }).toBe(0);
  }, 90_000);
});
