// `npm run bench`: starts its own services on a benchmark database and prints one table per section.
// Never part of `npm test`.
import { ConfigError, ensureDatabaseExists } from '@invoicing/service-kit';
import { freePort } from '@invoicing/testing/free-port';
import { NatsServerProcess } from '@invoicing/testing/nats-server';
import { openLocalDatabase, type LocalDatabase } from '../deploy/local/local-database.ts';
import { mintApiKey } from '../deploy/local/operator.ts';
import { GATEWAY, generateInternalToken, launchPlatform, type Platform } from '../deploy/local/platform.ts';
import { prefixedSink } from '../deploy/local/service-process.ts';
import { loadBenchSettings } from './config.ts';
import type { BenchSection } from './section.ts';
import { billingFinalize } from './sections/billing-finalize.ts';
import { documentsPdf } from './sections/documents-pdf.ts';
import { gatewayOverhead } from './sections/gateway-overhead.ts';
import { webhookDelivery } from './sections/webhook-delivery.ts';
import { renderTable } from './table.ts';

/** Every section, in the order they run. Later benchmarks (billing finalize, PDFs, webhooks) add theirs here. */
const SECTIONS: readonly BenchSection[] = [gatewayOverhead, billingFinalize, documentsPdf, webhookDelivery];

const say = (text: string) => process.stdout.write(`${text}\n`);

const selectSections = (only: string | undefined): BenchSection[] => {
  if (!only) return [...SECTIONS];
  const names = only.split(',').map((name) => name.trim());
  const unknown = names.filter((name) => !SECTIONS.some((section) => section.name === name));
  if (unknown.length) throw new ConfigError(`BENCH_ONLY names no section ${unknown.join(', ')}; there are ${SECTIONS.map((s) => s.name).join(', ')}`);
  return SECTIONS.filter((section) => names.includes(section.name));
};

const onDatabase = (serverUrl: string, database: string): string => {
  const url = new URL(serverUrl);
  url.pathname = `/${database}`;
  return url.toString();
};

const main = async (): Promise<number> => {
  const { settings, inherited } = loadBenchSettings();
  const sections = selectSections(settings.BENCH_ONLY);

  let server: LocalDatabase | undefined;
  let platform: Platform | undefined;
  let nats: NatsServerProcess | undefined;
  const cleanUp = async () => {
    await platform?.stop();
    await nats?.dispose();
    await server?.stop();
  };
  // Services run in their own process groups, so a Ctrl-C must stop them from here.
  const aborter = new AbortController();
  process.once('SIGINT', () => {
    aborter.abort();
    void cleanUp().then(() => process.exit(130));
  });

  try {
    server = await openLocalDatabase(settings, inherited);
    const databaseUrl = onDatabase(server.url, settings.BENCH_DATABASE);
    await ensureDatabaseExists(databaseUrl);
    const internalToken = generateInternalToken();
    // Each section runs on only the services it needs, started afresh: a section must not pay for
    // another's background work (documents printing every finalized invoice, say) on these 2 cores.
    for (const section of sections) {
      const services = [...section.services, GATEWAY];
      // The services run as separate processes, so events between them need NATS: the one named, else a
      // fresh one per section, so no section's consumers start behind another section's event backlog.
      nats = settings.NATS_URL ? undefined : await NatsServerProcess.launch();
      const natsUrl = settings.NATS_URL ?? nats?.url;
      const ports = Object.fromEntries(await Promise.all(services.map(async (name) => [name, await freePort()] as const)));
      say(`Starting ${services.join(', ')} on ${server.description}, database ${settings.BENCH_DATABASE} ...`);
      platform = await launchPlatform({
        services,
        ports,
        gateway: { host: '127.0.0.1', port: ports[GATEWAY]! },
        databaseUrl,
        internalToken,
        logLevel: 'warn',
        natsUrl,
        inherited,
        extraEnv: { RATE_LIMIT_MAX: '1000000000', ...section.env },
        sink: prefixedSink(Math.max(...services.map((name) => name.length))),
        signal: aborter.signal,
      });
      const { gatewayUrl, urls } = platform;
      const table = await section.run({
        gatewayUrl,
        serviceUrl: (name) => urls[name] ?? `(${name} is not running)`,
        internalToken,
        databaseUrl,
        mintKey: (workspace, scopes) => mintApiKey(databaseUrl, workspace, scopes, inherited),
        durationSeconds: settings.BENCH_DURATION_S,
        warmupSeconds: settings.BENCH_WARMUP_S,
        rounds: settings.BENCH_ROUNDS,
        progress: (text) => say(`  ${section.name}: ${text}`),
      });
      say(`\n${renderTable(table)}\n`);
      await platform.stop();
      platform = undefined;
      await nats?.dispose();
      nats = undefined;
    }
    return 0;
  } finally {
    await cleanUp();
  }
};

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`npm run bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
