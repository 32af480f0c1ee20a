import { createServiceApp, startTracing } from '@invoicing/service-kit';
import { InMemorySpanExporter } from '@opentelemetry/sdk-trace';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, INTERNAL_TOKEN, startGateway, type GatewayFixture } from './testing/gateway-fixture.ts';

const exporter = new InMemorySpanExporter();
// Before any app is built: with tracing off, apps register no tracing hooks at all.
const stopTracing = startTracing('gateway-test', {}, exporter);

let gateway: GatewayFixture;
const catalog = createServiceApp({ name: 'catalog', logger: false, internalToken: INTERNAL_TOKEN, checkReadiness: async () => {} });
catalog.get('/api/v1/customers/:id', async (request) => ({ data: { id: (request.params as { id: string }).id, traceparent: request.headers.traceparent } }));

beforeAll(async () => {
  await catalog.listen({ host: '127.0.0.1', port: 0 });
  const address = catalog.server.address() as { port: number };
  gateway = await startGateway({ env: { CATALOG_URL: `http://127.0.0.1:${address.port}` } });
});

afterAll(async () => {
  await gateway?.close();
  await catalog.close();
  await stopTracing();
});

describe('tracing', () => {
  it("continues the gateway's trace in the service it proxies to", async () => {
    const { key } = await gateway.createKey(['clients:read']);
    const response = await gateway.app.inject({ method: 'GET', url: '/api/v1/customers/cus_1', headers: bearer(key) });
    expect(response.statusCode).toBe(200);

    const spans = exporter.getFinishedSpans();
    const atGateway = spans.find((span) => span.instrumentationScope.name === 'gateway' && span.name === 'GET /api/v1/customers/:id');
    const atCatalog = spans.find((span) => span.instrumentationScope.name === 'catalog' && span.name === 'GET /api/v1/customers/:id');
    expect(atGateway).toBeDefined();
    expect(atCatalog?.spanContext().traceId).toBe(atGateway!.spanContext().traceId);
    expect(atCatalog?.parentSpanContext?.spanId).toBe(atGateway!.spanContext().spanId);
    expect(atCatalog?.attributes['http.response.status_code']).toBe(200);
  });
});
