import { context, propagation, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Context, type Span, type TextMapGetter, type TextMapSetter } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { W3CTraceContextPropagator } from '@opentelemetry/core';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, SimpleSpanProcessor, TracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { parseConfig } from './config.ts';

/** Tracing settings: off unless an OTLP endpoint is named. */
export const tracingSettings = {
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url().optional().describe('OTLP/HTTP collector, such as http://otel-collector:4318; unset: no tracing.'),
  OTEL_SERVICE_NAME: z.string().min(1).optional().describe('The resource name of this process; default: the service name.'),
};
const TracingSettings = z.object(tracingSettings);
export type TracingSettings = z.infer<typeof TracingSettings>;

let provider: TracerProvider | undefined;

/** Whether this process traces; every instrumentation point asks first, so tracing off costs nothing. */
export const tracingEnabled = (): boolean => provider !== undefined;

/**
 * Starts tracing for the whole process, once (a process hosting several services shares it):
 * W3C trace context in and out, spans batched to the OTLP endpoint. `exporter` replaces OTLP
 * (tests use an in-memory one, exported as each span ends). Returns the shutdown that flushes.
 */
export const startTracing = (serviceName: string, settings: TracingSettings, exporter?: SpanExporter): (() => Promise<void>) => {
  if (provider) return async () => {};
  if (!exporter && !settings.OTEL_EXPORTER_OTLP_ENDPOINT) return async () => {};
  const processor = exporter
    ? new SimpleSpanProcessor({ exporter })
    : new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url: `${settings.OTEL_EXPORTER_OTLP_ENDPOINT!.replace(/\/$/, '')}/v1/traces` }) });
  const started = new TracerProvider({
    resource: resourceFromAttributes({ 'service.name': settings.OTEL_SERVICE_NAME ?? serviceName }),
    spanProcessors: [processor],
  });
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  trace.setGlobalTracerProvider(started);
  provider = started;
  return async () => {
    provider = undefined;
    await started.shutdown();
    trace.disable();
    propagation.disable();
    context.disable();
  };
};

/** Parses the tracing settings from an environment (hosts call it; services never read process.env). */
export const parseTracingSettings = (env: NodeJS.ProcessEnv): TracingSettings => parseConfig(TracingSettings, env);

type HeaderRecord = Record<string, string | string[] | undefined>;

const recordGetter: TextMapGetter<HeaderRecord> = {
  keys: (carrier) => Object.keys(carrier),
  get: (carrier, key) => carrier[key],
};

/** Adds the active trace context (`traceparent`) to outgoing HTTP headers. */
export const injectTraceHeaders = (headers: HeaderRecord): void => {
  if (tracingEnabled()) propagation.inject(context.active(), headers);
};

/** Sets `traceparent` on headers of any shape (NATS `MsgHdrs`, fetch `Headers`). */
export const injectTraceContext = <C>(carrier: C, setter: TextMapSetter<C>): void => {
  if (tracingEnabled()) propagation.inject(context.active(), carrier, setter);
};

/** The trace context a message or request carries, to continue its trace. */
export const extractTraceContext = <C>(carrier: C, getter: TextMapGetter<C>): Context => propagation.extract(ROOT_CONTEXT, carrier, getter);

/** W3C trace context (`traceparent`, optionally `tracestate`) stored with work that continues later. */
export type TraceCarrier = Record<string, string>;

/**
 * The active trace context as a carrier to store (an outbox row continues its request's trace
 * when relayed later); undefined when tracing is off or no span is active.
 */
export const captureTraceContext = (): TraceCarrier | undefined => {
  if (!tracingEnabled()) return undefined;
  const carrier: TraceCarrier = {};
  propagation.inject(context.active(), carrier);
  return carrier.traceparent ? carrier : undefined;
};

/** Runs `work` inside a stored trace context, so the spans it starts join that trace; without one, or with tracing off, just runs it. */
export const withTraceContext = <T>(carrier: TraceCarrier | null | undefined, work: () => T): T => {
  if (!carrier || !tracingEnabled()) return work();
  return context.with(propagation.extract(ROOT_CONTEXT, carrier), work);
};

/** Runs `work` in a span that ends with it (and records its error). */
export const inSpan = async <T>(
  tracerName: string,
  name: string,
  options: { kind: SpanKind; parent?: Context; attributes?: Record<string, string | number> },
  work: (span: Span | undefined) => Promise<T>,
): Promise<T> => {
  if (!tracingEnabled()) return work(undefined);
  const span = trace.getTracer(tracerName).startSpan(name, { kind: options.kind, attributes: options.attributes ?? {} }, options.parent ?? context.active());
  try {
    return await context.with(trace.setSpan(options.parent ?? context.active(), span), () => work(span));
  } catch (error) {
    span.recordException(error as Error);
    span.setStatus({ code: SpanStatusCode.ERROR });
    throw error;
  } finally {
    span.end();
  }
};

const requestSpans = new WeakMap<FastifyRequest, Span>();

/**
 * A server span per request, continuing the caller's trace (`traceparent`), named by route
 * pattern; the rest of the request runs inside it, so calls it makes join the trace.
 */
export const registerTracing = (app: FastifyInstance, service: string): void => {
  if (!tracingEnabled()) return;
  const tracer = trace.getTracer(service);
  app.addHook('onRequest', (request, _reply, done) => {
    const parent = propagation.extract(ROOT_CONTEXT, request.headers, recordGetter);
    const span = tracer.startSpan(
      `${request.method} ${request.routeOptions.url ?? 'unmatched'}`,
      { kind: SpanKind.SERVER, attributes: { 'http.request.method': request.method, 'http.route': request.routeOptions.url ?? '', 'service.component': service } },
      parent,
    );
    requestSpans.set(request, span);
    context.with(trace.setSpan(parent, span), done);
  });
  app.addHook('onResponse', (request, reply, done) => {
    const span = requestSpans.get(request);
    span?.setAttribute('http.response.status_code', reply.statusCode);
    if (reply.statusCode >= 500) span?.setStatus({ code: SpanStatusCode.ERROR });
    span?.end();
    done();
  });
};

export { SpanKind };
