import type { FastifyInstance } from 'fastify';
import { collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Each app's own metrics: one process may host several services, so nothing goes to prom-client's global registry. */
export interface ServiceMetrics {
  registry: Registry;
  /** A gauge read at each scrape, such as a count of pending rows. */
  gauge: (name: string, help: string, read: () => number | Promise<number>) => void;
  histogram: (name: string, help: string, buckets: number[]) => Histogram;
}

declare module 'fastify' {
  interface FastifyInstance {
    metrics: ServiceMetrics;
  }
}

// Process metrics (memory, CPU, event loop lag) describe the process, not a service: collected once
// however many services it hosts, and shown on each of their /metrics.
let processRegistry: Registry | undefined;
const processMetrics = (): Registry => {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
};

const LATENCY_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];

const createServiceMetrics = (service: string): ServiceMetrics => {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  return {
    registry,
    gauge: (name, help, read) => {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          this.set(await read());
        },
      });
    },
    histogram: (name, help, buckets) => new Histogram({ name, help, buckets, registers: [registry] }),
  };
};

/**
 * Serves Prometheus text at `/metrics` and times every request by its route pattern (never the
 * raw URL, whose ids would make one series per invoice) and status. `app.metrics` takes the
 * service's own gauges and histograms.
 */
export const registerMetrics = (app: FastifyInstance, service: string, routeOptions: object = {}): void => {
  const metrics = createServiceMetrics(service);
  app.decorate('metrics', metrics);
  const latency = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from request to response, by route pattern, method and status.',
    labelNames: ['method', 'route', 'status_code'],
    buckets: LATENCY_BUCKETS_S,
    registers: [metrics.registry],
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    latency.observe({ method: request.method, route, status_code: reply.statusCode }, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', routeOptions, async (_request, reply) => {
    const text = (await processMetrics().metrics()) + (await metrics.registry.metrics());
    return reply.type(metrics.registry.contentType).send(text);
  });
};

/** Outbox lag as two gauges: events committed but not published yet, and how long the oldest has waited. */
export const observeOutboxLag = (metrics: ServiceMetrics, lag: () => Promise<{ pending: number; oldestMs: number }>): void => {
  metrics.gauge('outbox_pending_events', 'Events committed to the outbox and not yet published.', async () => (await lag()).pending);
  metrics.gauge('outbox_oldest_pending_age_seconds', 'Age of the oldest unpublished outbox event (0 when none).', async () => (await lag()).oldestMs / 1000);
};
