import { parsePublicId } from '@invoicing/contracts';
import { INTERNAL_HEADERS } from '@invoicing/service-kit/internal-headers';
import { measure, STANDARD_LOADS, type Measurement } from '../measure.ts';
import type { BenchContext, BenchSection } from '../section.ts';

/** The targets for a database-backed read through the gateway, against catalog directly. */
const TARGETS = { minThroughputRatio: 0.5, maxAddedP50Ms: 1.5, maxAddedP99Ms: 5 };

const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => `${value.toFixed(1)} ms`;
const signedMs = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} ms`;

const seedCustomer = async (context: BenchContext, key: string): Promise<string> => {
  const response = await fetch(`${context.gatewayUrl}/api/v1/customers`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Benchmark GmbH', email: 'bench@example.com', address: { city: 'Köln', country: 'DE' } }),
  });
  const body = (await response.json()) as { data?: { id: string } };
  if (response.status !== 201 || !body.data) throw new Error(`seeding a customer answered ${response.status}: ${JSON.stringify(body)}`);
  return body.data.id;
};

/** Checks that both paths return the same customer before timing them, so the figures compare like with like. */
const assertSameAnswer = async (gateway: Request, direct: Request): Promise<void> => {
  const [viaGateway, viaDirect] = await Promise.all([fetch(gateway), fetch(direct)]);
  const [gatewayBody, directBody] = await Promise.all([viaGateway.text(), viaDirect.text()]);
  if (viaGateway.status !== 200 || viaDirect.status !== 200 || gatewayBody !== directBody) {
    throw new Error(`gateway answered ${viaGateway.status} ${gatewayBody}; catalog directly ${viaDirect.status} ${directBody}`);
  }
};

/** `GET /api/v1/customers/:id` through the gateway and straight at catalog, under the standard loads. */
export const gatewayOverhead: BenchSection = {
  name: 'gateway',
  services: ['catalog'],
  run: async (context) => {
    const minted = await context.mintKey('bench', 'all');
    const customerId = await seedCustomer(context, minted.key);
    const path = `/api/v1/customers/${customerId}`;
    const gateway = { url: `${context.gatewayUrl}${path}`, headers: { authorization: `Bearer ${minted.key}` } };
    const direct = {
      url: `${context.serviceUrl('catalog')}${path}`,
      // What the gateway adds to a request it forwards.
      headers: {
        [INTERNAL_HEADERS.token]: context.internalToken,
        [INTERNAL_HEADERS.workspaceId]: parsePublicId('workspace', minted.workspace_id) ?? minted.workspace_id,
        [INTERNAL_HEADERS.apiKeyId]: parsePublicId('apiKey', minted.key_id) ?? minted.key_id,
      },
    };
    await assertSameAnswer(new Request(gateway.url, gateway), new Request(direct.url, direct));

    const rows: string[][] = [];
    for (const load of STANDARD_LOADS) {
      const timing = { load, durationSeconds: context.durationSeconds, warmupSeconds: context.warmupSeconds };
      context.progress(`${load.label}: catalog directly`);
      const straight: Measurement = await measure({ ...direct, ...timing });
      context.progress(`${load.label}: through the gateway`);
      const proxied: Measurement = await measure({ ...gateway, ...timing });
      const ratio = proxied.requestsPerSecond / straight.requestsPerSecond;
      const addedP50 = proxied.p50 - straight.p50;
      const addedP99 = proxied.p99 - straight.p99;
      rows.push([
        load.label,
        perSecond(straight.requestsPerSecond),
        ms(straight.p50),
        ms(straight.p99),
        perSecond(proxied.requestsPerSecond),
        ms(proxied.p50),
        ms(proxied.p99),
        `${Math.round(ratio * 100)}% ${mark(ratio >= TARGETS.minThroughputRatio)}`,
        `${signedMs(addedP50)} ${mark(addedP50 <= TARGETS.maxAddedP50Ms)}`,
        `${signedMs(addedP99)} ${mark(addedP99 <= TARGETS.maxAddedP99Ms)}`,
      ]);
    }
    return {
      title: `GET /api/v1/customers/:id, through the gateway against catalog directly (${context.durationSeconds} s each after ${context.warmupSeconds} s warm-up)`,
      columns: ['load', 'direct req/s', 'direct p50', 'direct p99', 'gateway req/s', 'gateway p50', 'gateway p99', 'gateway/direct', 'added p50', 'added p99'],
      rows,
      notes: [
        `Targets: gateway/direct throughput >= ${TARGETS.minThroughputRatio * 100}%, added p50 <= ${TARGETS.maxAddedP50Ms} ms, added p99 <= ${TARGETS.maxAddedP99Ms} ms.`,
        'Latencies come from autocannon, in whole milliseconds; the load generator shares the machine with the services and PostgreSQL.',
      ],
    };
  },
};
