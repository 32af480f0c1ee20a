import { parsePublicId } from '@invoicing/contracts';
import { INTERNAL_HEADERS } from '@invoicing/service-kit/internal-headers';
import { ALL } from '../process-meter.ts';
import { startBareHop } from '../bare-hop-process.ts';
import { mark, micros, perSecond, times } from '../format.ts';
import { measureSideBySide, STANDARD_LOADS, type Measurement } from '../measure.ts';
import type { BenchContext, BenchSection, TargetResult } from '../section.ts';
import type { Table } from '../table.ts';

/**
 * Targets against catalog directly (issue #9), and against the bare hop (issue #13): the gateway's
 * CPU per proxied request at most 1.3x the bare hop's, its throughput at least 0.85x the bare hop's.
 */
const TARGETS = { minThroughputRatio: 0.5, maxAddedP50Ms: 1.5, maxAddedP99Ms: 5, maxCpuToBareHop: 1.3, minThroughputToBareHop: 0.85 };
/** The loads the targets against the bare hop name. */
const TARGET_LOADS = new Set([10, 50]);
const GATEWAY = 'gateway';
const BARE_HOP = 'bare hop';

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
    if (bareHop.pid !== undefined) context.watch(BARE_HOP, bareHop.pid);
    try {
      const targets = {
        direct: { url: `${context.serviceUrl('catalog')}${path}`, headers: forwarded },
        bareHop: { url: `${bareHop.url}${path}`, headers: {} },
        gateway: { url: `${context.gatewayUrl}${path}`, headers: { authorization: `Bearer ${minted.key}` } },
      };
      await assertSameAnswer(targets);

      const rows: string[][] = [];
      const cpuTables: Table[] = [];
      const results: TargetResult[] = [];
      let serverErrors = 0;
      for (const load of STANDARD_LOADS) {
        const measured = await measureSideBySide(
          { direct: targets.direct, bare: targets.bareHop, gateway: targets.gateway },
          {
            load,
            durationSeconds: context.durationSeconds,
            warmupSeconds: context.warmupSeconds,
            rounds: context.rounds,
            meter: context.meter,
            onMeasure: (name, round) => context.progress(`${load.label}: ${LABELS[name]}, round ${round} of ${context.rounds}`),
          },
        );
        const { direct, bare, gateway } = measured;
        serverErrors += direct.serverErrors + bare.serverErrors + gateway.serverErrors;
        const ratio = gateway.requestsPerSecond / direct.requestsPerSecond;
        const addedP50 = gateway.p50 - direct.p50;
        const addedP99 = gateway.p99 - direct.p99;
        const toBareHop = gateway.requestsPerSecond / bare.requestsPerSecond;
        const gatewayCpu = gateway.cpuPerRequest[GATEWAY] ?? Number.NaN;
        const bareHopCpu = bare.cpuPerRequest[BARE_HOP] ?? Number.NaN;
        const cpuRatio = gatewayCpu / bareHopCpu;
        const targeted = load.pipelining === 1 && TARGET_LOADS.has(load.connections);
        rows.push([
          load.label,
          summary(direct),
          summary(bare),
          summary(gateway),
          `${percent(ratio)} ${mark(ratio >= TARGETS.minThroughputRatio)}`,
          `${signedMs(addedP50)} ${mark(addedP50 <= TARGETS.maxAddedP50Ms)}`,
          `${signedMs(addedP99)} ${mark(addedP99 <= TARGETS.maxAddedP99Ms)}`,
          targeted ? `${times(toBareHop)} ${mark(toBareHop >= TARGETS.minThroughputToBareHop)}` : times(toBareHop),
          targeted ? `${times(cpuRatio)} ${mark(cpuRatio <= TARGETS.maxCpuToBareHop)}` : times(cpuRatio),
        ]);
        if (targeted) {
          results.push(
            {
              target: `gateway CPU per proxied request <= ${TARGETS.maxCpuToBareHop}x the bare hop's, ${load.label}`,
              figure: micros(gatewayCpu),
              baseline: micros(bareHopCpu),
              ratio: times(cpuRatio),
              pass: cpuRatio <= TARGETS.maxCpuToBareHop,
            },
            {
              target: `gateway throughput >= ${TARGETS.minThroughputToBareHop}x the bare hop's, ${load.label}`,
              figure: `${perSecond(gateway.requestsPerSecond)}/s`,
              baseline: `${perSecond(bare.requestsPerSecond)}/s`,
              ratio: times(toBareHop),
              pass: toBareHop >= TARGETS.minThroughputToBareHop,
            },
          );
        }
        const processes = context.meter.names();
        cpuTables.push({
          title: `CPU per request by process, ${load.label} (medians of ${context.rounds} round(s))`,
          columns: ['process', 'catalog directly', 'through the bare hop', 'through the gateway'],
          rows: [
            ...processes.map((name) => [name, micros(direct.cpuPerRequest[name]), micros(bare.cpuPerRequest[name]), micros(gateway.cpuPerRequest[name])]),
            ['all of them', ...[direct, bare, gateway].map((m) => micros(m.cpuPerRequest[ALL]))],
          ],
        });
      }
      return {
        targets: results,
        serverErrors,
        tables: [
          {
            title: `GET /api/v1/customers/:id: catalog directly, through a bare hop and through the gateway (medians of ${context.rounds} alternating rounds of ${context.durationSeconds} s each after ${context.warmupSeconds} s warm-up)`,
            columns: ['load', 'direct req/s (p50/p99)', 'bare hop req/s (p50/p99)', 'gateway req/s (p50/p99)', 'gateway/direct', 'added p50', 'added p99', 'gateway/bare hop req/s', 'gateway/bare hop CPU'],
            rows,
            notes: [
              `Targets: gateway/direct throughput >= ${TARGETS.minThroughputRatio * 100}%, added p50 <= ${TARGETS.maxAddedP50Ms} ms, added p99 <= ${TARGETS.maxAddedP99Ms} ms (issue 9); at 10 and 50 connections gateway/bare hop throughput >= ${TARGETS.minThroughputToBareHop}x and the gateway process's CPU per request <= ${TARGETS.maxCpuToBareHop}x the bare hop process's (issue 13).`,
              'The bare hop is node:http plus one undici pool in its own process, adding the internal headers and nothing else (bench/bare-hop.ts): the least any proxy process costs on this machine.',
              'CPU per request: utime + stime from /proc/<pid>/stat of each process (with its children) read before and after each measured window, divided by the 2xx answers in it.',
              "Under a load that saturates the machine, latency is connections / throughput (Little's law): the added p50 then follows from the throughput ratio.",
              'Latencies come from autocannon, in whole milliseconds; the load generator shares the machine with the services and PostgreSQL.',
            ],
          },
          ...cpuTables,
        ],
      };
    } finally {
      await bareHop.stop();
    }
  },
};
