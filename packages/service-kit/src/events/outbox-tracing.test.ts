import { createTestDatabase, NatsServerProcess, type TestDatabase } from '@invoicing/testing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../database.ts';
import { outboxClaimColumnsSql, outboxTableSql } from '../migration-sql.ts';
import { inSpan, SpanKind, startTracing } from '../tracing.ts';
import type { EventBus } from './event-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';
import { makeEnvelope } from './make-envelope.ts';
import { addToOutbox, OutboxRelay } from './outbox.ts';

const SCHEMA = 'relay_tracing_test';
const exporter = new InMemorySpanExporter();
const stopTracing = startTracing('outbox-test', {}, exporter);

// A server of its own: the durable consumer below must see this file's events only.
let nats: NatsServerProcess;
let bus: EventBus;
let database: TestDatabase;
let orm: Orm;
const handled: string[] = [];

beforeAll(async () => {
  database = await createTestDatabase('outbox_tracing');
  orm = await openDatabase({ url: database.url, schema: SCHEMA, entities: [], migrations: [], poolSize: 2 });
  await orm.em.getConnection().execute(`create schema ${SCHEMA}`);
  for (const sql of [...outboxTableSql(SCHEMA), ...outboxClaimColumnsSql(SCHEMA)]) await orm.em.getConnection().execute(sql);
  nats = await NatsServerProcess.launch();
  bus = await connectJetStreamBus({ url: nats.url, name: 'outbox-tracing-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
  await bus.subscribe({ durable: 'outbox-tracing-test', subject: 'billing.invoice.paid', handle: async (envelope) => void handled.push(envelope.id) });
});

afterAll(async () => {
  await bus?.close();
  await nats?.dispose();
  await orm?.close();
  await database?.drop();
  await stopTracing();
});

describe('tracing through the outbox', () => {
  it("publishes an event in the trace of the request that added it, so its consumer's span joins that trace", async () => {
    const event = makeEnvelope();
    await inSpan('billing', 'POST /api/v1/invoices/:id/pay', { kind: SpanKind.SERVER }, () =>
      orm.em.fork().transactional((tx) => addToOutbox(tx, SCHEMA, event)),
    );
    // Relayed later, outside the request: only the row carries its trace.
    const relay = new OutboxRelay({ orm, schema: SCHEMA, bus, onError: () => {} });
    expect(await relay.relayBatch()).toBe(1);
    const consumed = () => exporter.getFinishedSpans().some((span) => span.name === 'process billing.invoice.paid');
    const deadline = Date.now() + 10_000;
    while (!consumed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handled).toEqual([event.id]);

    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'POST /api/v1/invoices/:id/pay')!;
    const publish = spans.find((span) => span.name === 'publish billing.invoice.paid')!;
    const consume = spans.find((span) => span.name === 'process billing.invoice.paid')!;
    expect(publish.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(consume.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
  });
});
