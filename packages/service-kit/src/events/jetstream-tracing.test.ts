import { NatsServerProcess } from '@invoicing/testing';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inSpan, SpanKind, startTracing } from '../tracing.ts';
import type { EventBus } from './event-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';
import { makeEnvelope } from './make-envelope.ts';

const exporter = new InMemorySpanExporter();
const stopTracing = startTracing('bus-test', {}, exporter);

// A server of its own: the durable consumer below must see this file's events only.
let nats: NatsServerProcess;
let bus: EventBus;
const handled: string[] = [];

beforeAll(async () => {
  nats = await NatsServerProcess.launch();
  bus = await connectJetStreamBus({ url: nats.url, name: 'tracing-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
  await bus.subscribe({ durable: 'tracing-test', subject: 'billing.invoice.paid', handle: async (envelope) => void handled.push(envelope.id) });
});

afterAll(async () => {
  await bus?.close();
  await nats?.dispose();
  await stopTracing();
});

describe('tracing over JetStream', () => {
  it("continues the publisher's trace in the consumer, through the message headers", async () => {
    const event = makeEnvelope();
    await inSpan('billing', 'POST /api/v1/invoices/:id/pay', { kind: SpanKind.SERVER }, () => bus.publish(event));
    const consumed = () => exporter.getFinishedSpans().some((span) => span.name === 'process billing.invoice.paid');
    const deadline = Date.now() + 10_000;
    while (!consumed() && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(handled).toEqual([event.id]);

    const spans = exporter.getFinishedSpans();
    const request = spans.find((span) => span.name === 'POST /api/v1/invoices/:id/pay')!;
    const publish = spans.find((span) => span.name === 'publish billing.invoice.paid')!;
    const consume = spans.find((span) => span.name === 'process billing.invoice.paid')!;
    expect(publish.parentSpanContext?.spanId).toBe(request.spanContext().spanId);
    expect(consume.spanContext().traceId).toBe(request.spanContext().traceId);
    expect(consume.parentSpanContext?.spanId).toBe(publish.spanContext().spanId);
    expect(consume.kind).toBe(SpanKind.CONSUMER);
  });
});
