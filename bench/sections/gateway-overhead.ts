import { parsePublicId } from '@invoicing/contracts';
import { INTERNAL_HEADERS } from '@invoicing/service-kit/internal-headers';
import { startBareHop } from '../bare-hop-process.ts';
import { measureSideBySide, STANDARD_LOADS, type Measurement } from '../measure.ts';
import type { BenchContext, BenchSection } from '../section.ts';

/** The targets for a database-backed read through the gateway, against catalog directly. */
const TARGETS = { minThroughputRatio: 0.5, maxAddedP50Ms: 1.5, maxAddedP99Ms: 5 };

const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const perSecond = (value: number) => Math.round(value).toLocaleString('en-US');
const signedMs = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(1)} ms`;
const summary = ({ requestsPerSecond, p50, p99 }: Measurement) => `${perSecond(requestsPerSecond)} (${p50}/${p99} ms)`;
const percent = (ratio: number) => `${Math.round(ratio * 100)}%`;
const LABELS = { direct: 'catalog directly', bare: 'through the bare hop', gateway: 'through the gateway' } as const;

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

interface Target {
  url: string;
  headers: Record<string, string>;
}

/** Checks that every path returns the same customer before timing them, so the figures compare like with like. */
const assertSameAnswer = async (targets: Record<string, Target>): Promise<void> => {
  const answers = await Promise.all(
    Object.entries(targets).map(async ([name, { url, headers }]) => {
      const response = await fetch(url, { headers });
      return { name, status: response.status, body: await response.text() };
    }),
  );
  const [first] = answers;
  if (answers.some(({ status, body }) => status !== 200 || body !== first?.body)) {
    throw new Error(`the paths answer differently: ${answers.map(({ name, status, body }) => `${name} ${status} ${body}`).join('; ')}`);
  }
};

/**
 * `GET /api/v1/customers/:id` straight at catalog, through a bare proxy hop (the least any proxy
 * in its own process costs here) and through the gateway, under the standard loads.
 */
export const gatewayOverhead: BenchSection = {
  name: 'gateway',
  services: ['catalog'],
  run: async (context) => {
    const minted = await context.mintKey('bench', 'all');
    const customerId = await seedCustomer(context, minted.key);
    const path = `/api/v1/customers/${customerId}`;
    // What the gateway adds to a request it forwards.
    const forwarded = {
      [INTERNAL_HEADERS.token]: context.internalToken,
      [INTERNAL_HEADERS.workspaceId]: parsePublicId('workspace', minted.workspace_id) ?? minted.workspace_id,
      [INTERNAL_HEADERS.apiKeyId]: parsePublicId('apiKey', minted.key_id) ?? minted.key_id,
    };
    const bareHop = await startBareHop(context.serviceUrl('catalog'), forwarded);
    try {
      const targets = {
        direct: { url: `${context.serviceUrl('catalog')}${path}`, headers: forwarded },
        bareHop: { url: `${bareHop.url}${path}`, headers: {} },
        gateway: { url: `${context.gatewayUrl}${path}`, headers: { authorization: `Bearer ${minted.key}` } },
      };
      await assertSameAnswer(targets);

      const rows: string[][] = [];
      for (const load of STANDARD_LOADS) {
        const { direct, bare, gateway } = await measureSideBySide(
          { direct: targets.direct, bare: targets.bareHop, gateway: targets.gateway },
          {
            load,
            durationSeconds: context.durationSeconds,
            warmupSeconds: context.warmupSeconds,
            rounds: context.rounds,
            onMeasure: (name, round) => context.progress(`${load.label}: ${LABELS[name]}, round ${round} of ${context.rounds}`),
          },
        );
        const ratio = gateway.requestsPerSecond / direct.requestsPerSecond;
        const addedP50 = gateway.p50 - direct.p50;
        const addedP99 = gateway.p99 - direct.p99;
        rows.push([
          load.label,
          summary(direct),
          summary(bare),
          summary(gateway),
          `${percent(ratio)} ${mark(ratio >= TARGETS.minThroughputRatio)}`,
          `${signedMs(addedP50)} ${mark(addedP50 <= TARGETS.maxAddedP50Ms)}`,
          `${signedMs(addedP99)} ${mark(addedP99 <= TARGETS.maxAddedP99Ms)}`,
          `${percent(bare.requestsPerSecond / direct.requestsPerSecond)}, ${signedMs(bare.p50 - direct.p50)} / ${signedMs(bare.p99 - direct.p99)}`,
        ]);
      }
      return {
        title: `GET /api/v1/customers/:id: catalog directly, through a bare hop and through the gateway (medians of ${context.rounds} alternating rounds of ${context.durationSeconds} s each after ${context.warmupSeconds} s warm-up)`,
        columns: ['load', 'direct req/s (p50/p99)', 'bare hop req/s (p50/p99)', 'gateway req/s (p50/p99)', 'gateway/direct', 'added p50', 'added p99', 'bare hop: of direct, added p50 / p99'],
        rows,
        notes: [
          `Targets: gateway/direct throughput >= ${TARGETS.minThroughputRatio * 100}%, added p50 <= ${TARGETS.maxAddedP50Ms} ms, added p99 <= ${TARGETS.maxAddedP99Ms} ms.`,
          'The bare hop is node:http plus one undici pool in its own process, adding the internal headers and nothing else (bench/bare-hop.ts): the least any proxy process costs on this machine, for scale.',
          'Under a load that saturates the machine, latency is connections / throughput (Little\'s law): the added p50 then follows from the throughput ratio.',
          'Latencies come from autocannon, in whole milliseconds; the load generator shares the machine with the services and PostgreSQL.',
        ],
      };
    } finally {
      await bareHop.stop();
    }
  },
};
