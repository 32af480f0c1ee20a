// `npm run bench`: starts its own services on a benchmark database, measures each section, and
// writes bench/REPORT.md (printed at the end too). Never part of `npm test`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigError, ensureDatabaseExists, repositoryRoot } from '@invoicing/service-kit';
import { freePort } from '@invoicing/testing/free-port';
import { NatsServerProcess } from '@invoicing/testing/nats-server';
import { openLocalDatabase, type LocalDatabase } from '../deploy/local/local-database.ts';
import { mintApiKey } from '../deploy/local/operator.ts';
import { GATEWAY, generateInternalToken } from '../deploy/local/platform.ts';
import { prefixedSink } from '../deploy/local/service-process.ts';
import { loadBenchSettings, type BenchSettings } from './config.ts';
import { megabytes } from './format.ts';
import { describeMachine, inspectDatabaseServer } from './machine.ts';
import { launchBenchPlatform, type BenchPlatform } from './platform.ts';
import { listProcesses } from './proc.ts';
import { ProcessMeter, type MemoryUsage, type WatchedProcess } from './process-meter.ts';
import { renderReport, type SectionOutcome } from './report.ts';
import type { BenchContext, BenchSection } from './section.ts';
import { bankStatementImport } from './sections/bank-statement-import.ts';
import { billingFinalize } from './sections/billing-finalize.ts';
import { deepPages } from './sections/deep-pages.ts';
import { documentsPdf } from './sections/documents-pdf.ts';
import { gatewayOverhead } from './sections/gateway-overhead.ts';
import { metadataFilter } from './sections/metadata-filter.ts';
import { startMemory } from './sections/start-memory.ts';
import { subscriptionInvoicing } from './sections/subscription-invoicing.ts';
import { webhookDelivery } from './sections/webhook-delivery.ts';
import { renderTable, type Table } from './table.ts';

/** Every section, in the order they run. */
const SECTIONS: readonly BenchSection[] = [gatewayOverhead, billingFinalize, subscriptionInvoicing, deepPages, metadataFilter, startMemory, documentsPdf, webhookDelivery, bankStatementImport];
const BENCH_DIR = join(repositoryRoot(), 'bench');
/** Seconds the services may settle after /readyz before their idle memory is read. */
const IDLE_SETTLE_MS = 2_000;

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

/** The BENCH_* settings as they ran, each against its default, for the report's header. */
const describeSettings = (settings: BenchSettings) => {
  const defaults = loadBenchSettings({}).settings as Record<string, unknown>;
  const show = (value: unknown) => (value === undefined ? '(unset)' : Array.isArray(value) ? value.join(',') : String(value));
  return Object.entries(settings as Record<string, unknown>)
    .filter(([name]) => name.startsWith('BENCH_'))
    .map(([name, value]) => ({ name, value: show(value), isDefault: show(value) === show(defaults[name]) }));
};

const memoryTable = (section: string, idle: readonly MemoryUsage[], underLoad: readonly MemoryUsage[]): Table => {
  const peakOf = new Map(underLoad.map((usage) => [usage.name, usage]));
  const idleOf = new Map(idle.map((usage) => [usage.name, usage]));
  // Processes a section started itself (the bare hop) were not there when idle was read.
  const names = [...new Set([...idleOf.keys(), ...peakOf.keys()])];
  const row = (name: string) => {
    const [rest, peak] = [idleOf.get(name), peakOf.get(name)];
    return [name, String(Math.max(rest?.processes ?? 0, peak?.processes ?? 0)), rest ? megabytes(rest.rssBytes) : '–', rest ? megabytes(rest.pssBytes) : '–', peak ? megabytes(peak.rssBytes) : '–', peak ? megabytes(peak.pssBytes) : '–'];
  };
  const sum = (usages: readonly MemoryUsage[], key: 'rssBytes' | 'pssBytes') => usages.reduce((total, usage) => total + usage[key], 0);
  return {
    title: `Memory per process, ${section}: idle after start-up, and the highest under load`,
    columns: ['process', 'processes', 'idle RSS', 'idle PSS', 'under load RSS', 'under load PSS'],
    rows: [
      ...names.map(row),
      ['all of them', '', megabytes(sum(idle, 'rssBytes')), megabytes(sum(idle, 'pssBytes')), underLoad.length ? megabytes(sum(underLoad, 'rssBytes')) : '–', underLoad.length ? megabytes(sum(underLoad, 'pssBytes')) : '–'],
    ],
    notes: [
      'RSS and PSS from /proc/<pid>/smaps_rollup of each process with its descendants; PSS shares a page among the processes that map it (PostgreSQL\'s shared buffers), so PSS sums honestly and RSS sums overcount.',
      'Under load: the highest reading of samples taken every second during the measured windows.',
    ],
  };
};

const main = async (): Promise<number> => {
  const began = new Date();
  const { settings, inherited } = loadBenchSettings();
  const sections = selectSections(settings.BENCH_ONLY);

  let server: LocalDatabase | undefined;
  let platform: BenchPlatform | undefined;
  let nats: NatsServerProcess | undefined;
  const cleanUp = async () => {
    await platform?.stop();
    await nats?.dispose();
    await server?.stop();
  };
  // Services run in their own process groups, so a Ctrl-C must stop them from here.
  process.once('SIGINT', () => void cleanUp().then(() => process.exit(130)));

  const outcomes: SectionOutcome[] = [];
  let postgresVersion = 'unknown';
  try {
    server = await openLocalDatabase(settings, inherited);
    const databaseUrl = onDatabase(server.url, settings.BENCH_DATABASE);
    await ensureDatabaseExists(databaseUrl);
    const database = await inspectDatabaseServer(databaseUrl);
    postgresVersion = database.version;
    const internalToken = generateInternalToken();
    for (const section of sections) {
      const extra: WatchedProcess[] = [];
      const fixed = (): WatchedProcess[] => [
        ...(database.postmasterPid === undefined ? [] : [{ name: 'postgres (all processes)', pid: database.postmasterPid }]),
        ...listProcesses().filter((stat) => stat.ppid === process.pid && stat.comm === 'nats-server').map((stat) => ({ name: 'nats-server', pid: stat.pid })),
        { name: 'load generator (this process)', pid: process.pid, alone: true },
      ];
      const meter = new ProcessMeter(() => [...(platform?.pids() ?? []), ...extra, ...fixed()]);
      const tables: Table[] = [];
      let idle: MemoryUsage[] = [];
      try {
        const context: BenchContext = {
          gatewayUrl: '',
          serviceUrl: (name) => platform?.urls[name] ?? `(${name} is not running)`,
          internalToken,
          databaseUrl,
          mintKey: (workspace, scopes) => mintApiKey(databaseUrl, workspace, scopes, inherited),
          durationSeconds: settings.BENCH_DURATION_S,
          warmupSeconds: settings.BENCH_WARMUP_S,
          rounds: settings.BENCH_ROUNDS,
          settings,
          meter,
          watch: (name, pid) => void extra.push({ name, pid }),
          restartService: async (name, env) => {
            if (!platform) throw new Error(`section ${section.name} runs no services`);
            context.progress(`starting ${name} again with ${Object.entries(env).map(([key, value]) => `${key}=${value}`).join(' ') || 'its own settings'}`);
            await platform.restart(name, env);
          },
          progress: (text) => say(`  ${section.name}: ${text}`),
        };
        if (!section.standalone) {
          const services = [...section.services, GATEWAY];
          // A fresh NATS per section (unless one is named), so no section's consumers start behind another's backlog.
          nats = settings.NATS_URL ? undefined : await NatsServerProcess.launch();
          const ports = Object.fromEntries(await Promise.all(services.map(async (name) => [name, await freePort()] as const)));
          say(`Starting ${services.join(', ')} on ${server.description}, database ${settings.BENCH_DATABASE} ...`);
          platform = await launchBenchPlatform({
            services,
            ports,
            gateway: { host: '127.0.0.1', port: ports[GATEWAY]! },
            databaseUrl,
            internalToken,
            logLevel: 'warn',
            natsUrl: settings.NATS_URL ?? nats?.url,
            inherited,
            extraEnv: { RATE_LIMIT_MAX: '1000000000', ...section.env },
            sink: prefixedSink(Math.max(...services.map((name) => name.length))),
          });
          context.gatewayUrl = platform.gatewayUrl;
          await new Promise((resolve) => setTimeout(resolve, IDLE_SETTLE_MS));
          idle = meter.memory();
        }
        const report = await section.run(context);
        tables.push(...report.tables);
        if (!section.standalone) tables.push(memoryTable(`section ${section.name}`, idle, meter.peakUnderLoad()));
        for (const file of report.files ?? []) writeFileSync(join(BENCH_DIR, file.name), file.content);
        outcomes.push({ name: section.name, tables, targets: report.targets, serverErrors: report.serverErrors, files: report.files ?? [] });
      } catch (error) {
        const failure = error instanceof Error ? error.message : String(error);
        say(`  ${section.name} failed: ${failure}`);
        outcomes.push({ name: section.name, tables, targets: [], serverErrors: 0, files: [], failure });
      } finally {
        for (const table of tables) say(`\n${renderTable(table)}\n`);
        await platform?.stop();
        platform = undefined;
        await nats?.dispose();
        nats = undefined;
      }
    }
  } finally {
    await cleanUp();
  }
  const report = renderReport({
    machine: describeMachine(postgresVersion, began),
    settings: describeSettings(settings),
    sections: outcomes,
    elapsedSeconds: (Date.now() - began.getTime()) / 1000,
  });
  writeFileSync(join(BENCH_DIR, 'REPORT.md'), report);
  say(`\n${report}\nWritten to bench/REPORT.md.`);
  return outcomes.some((outcome) => outcome.failure) ? 1 : 0;
};

try {
  process.exitCode = await main();
} catch (error) {
  process.stderr.write(`npm run bench: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
