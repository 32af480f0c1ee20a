import pg from 'pg';
import { createInvoicingClient, type InvoicingClient } from '@invoicing/client';
import { EmbeddedPostgresProcess, freePort, NatsServerProcess } from '@invoicing/testing';
import { mintApiKey, type MintedKey } from '../../../deploy/local/operator.ts';
import { GATEWAY, generateInternalToken, serviceEnvironment, upstreamUrlVariable } from '../../../deploy/local/platform.ts';
import { SERVICE_NAMES } from '../../../deploy/local/services.ts';
import { describeExit, ServiceProcess, type Exit } from '../../../deploy/local/service-process.ts';
import { startInterposer, type Interposer } from './interposer.ts';

/**
 * Settings that make faults cheap to ride out: short deadlines and schedules, so a test waits
 * seconds where production would wait minutes. The gateway's leases of Idempotency-Keys in flight
 * keep their default (IDEMPOTENCY_LEASE_MS, 5 s): after its process died, retries see 409
 * idempotency_key_in_use for up to 5 s, as they would in production.
 */
export const FAULT_SETTINGS: Readonly<Record<string, string>> = {
  WEBHOOK_ALLOWED_HOSTS: '127.0.0.1,localhost',
  WEBHOOK_RETRY_SCHEDULE: '0,1,1,2,2,3',
  WEBHOOK_TIMEOUT_MS: '1500',
  WEBHOOK_POLL_MS: '200',
  OUTBOX_POLL_MS: '100',
  UPSTREAM_TIMEOUT_MS: '3000',
  CATALOG_TIMEOUT_MS: '3000',
  RATE_LIMIT_MAX: '1000000',
  SUBSCRIPTION_SCHEDULER_INTERVAL_MS: '1000',
  SUBSCRIPTION_CLAIM_LEASE_MS: '10000',
};

/** The client's retry policy: enough attempts and backoff to ride out a restart (about 40 s in all). */
export const RIDE_OUT_RESTARTS = { retries: 30, baseDelayMs: 100, maxDelayMs: 1_500 };

const LOG_LINES_KEPT = 200;

export interface UnexpectedExit {
  name: string;
  exit: Exit;
  at: number;
}

/**
 * The whole platform as deployed, for fault tests: the gateway and every service as its own
 * process (`services/<x>/src/main.ts` on Node 24, the environment `npm start` gives it), on a
 * PostgreSQL cluster and a nats-server of its own that the test may stop and start again. The
 * gateway reaches billing through an interposer that can trap one answer. Any one process can be
 * SIGKILLed and started again on the same port with the same environment.
 */
export const startFaultPlatform = async ({ extraEnv = {} }: { extraEnv?: Readonly<Record<string, string>> } = {}) => {
  const postgres = await EmbeddedPostgresProcess.launch();
  const nats = await NatsServerProcess.launch();
  const databaseUrl = await createDatabase(postgres.url, 'invoicing');
  const names = SERVICE_NAMES;
  const ports: Record<string, number> = {};
  for (const name of names) ports[name] = await freePort();
  const upstreams = names.filter((name) => name !== GATEWAY);
  const urlOf = (name: string) => `http://127.0.0.1:${ports[name]}`;
  const interposer: Interposer = await startInterposer(urlOf('billing'));
  const internalToken = generateInternalToken();
  const inherited = { PATH: process.env.PATH ?? '' };
  const common = serviceEnvironment(
    { gateway: { host: '127.0.0.1', port: ports[GATEWAY]! }, inherited, databaseUrl, internalToken, logLevel: 'warn', natsUrl: nats.url, extraEnv: { ...FAULT_SETTINGS, ...extraEnv } },
    upstreams.map((name) => [name, ports[name]!] as const),
  );
  const environmentOf = (name: string): NodeJS.ProcessEnv => ({
    ...common,
    HOST: '127.0.0.1',
    PORT: String(ports[name]),
    // Only the gateway goes through the interposer; documents calls billing directly.
    ...(name === GATEWAY ? { [upstreamUrlVariable('billing')]: interposer.url } : {}),
  });

  const logs = new Map<string, string[]>();
  const sink = (name: string, line: string) => {
    const lines = logs.get(name) ?? [];
    lines.push(line);
    if (lines.length > LOG_LINES_KEPT) lines.shift();
    logs.set(name, lines);
  };
  const running = new Map<string, ServiceProcess>();
  const killed = new WeakSet<ServiceProcess>();
  const unexpectedExits: UnexpectedExit[] = [];
  let stopping = false;

  const launch = async (name: string, { waitUntilReady = true, env = {} }: { waitUntilReady?: boolean; env?: Readonly<Record<string, string>> } = {}): Promise<void> => {
    const child = new ServiceProcess(name, ports[name]!, { ...environmentOf(name), ...env }, sink);
    running.set(name, child);
    void child.exited.then((exit) => {
      if (!killed.has(child) && !stopping) unexpectedExits.push({ name, exit, at: Date.now() });
    });
    if (!waitUntilReady) return;
    await child.waitUntilReady(60_000).catch((error: Error) => {
      // Our sink keeps the lines rather than printing them, so the error must carry them.
      throw new Error(`${error.message.replace('See its lines above.', '')}Its last lines:\n${(logs.get(name) ?? []).slice(-30).join('\n')}`);
    });
  };

  /** SIGKILL to the process and its group (documents' Chromium dies with it), as the kernel's OOM killer or a node failure would. */
  const kill = async (name: string): Promise<void> => {
    const child = running.get(name);
    if (!child?.running) return;
    killed.add(child);
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      process.kill(child.pid!, 'SIGKILL');
    }
    await child.exited;
  };

  const stopEverything = async () => {
    stopping = true;
    await running.get(GATEWAY)?.stop();
    await Promise.all([...running].filter(([name]) => name !== GATEWAY).map(([, child]) => child.stop()));
    await interposer.close();
    await nats.dispose();
    await postgres.dispose();
  };
  try {
    await Promise.all(upstreams.map((name) => launch(name)));
    await launch(GATEWAY);
  } catch (error) {
    // Nothing may outlive a failed start: the test never gets a platform to stop.
    await stopEverything();
    throw error;
  }
  const gatewayUrl = urlOf(GATEWAY);

  return {
    gatewayUrl,
    databaseUrl,
    postgres,
    nats,
    interposer,
    names,
    /** Each service's own origin, for /readyz. */
    urls: Object.fromEntries(names.map((name) => [name, urlOf(name)])) as Readonly<Record<string, string>>,
    kill,
    /**
     * Starts a killed (or crashed) service again on its port with its environment (and `env` over
     * it, for this run of the process only); resolves when it is ready, or at once with
     * `waitUntilReady: false` (when its database or NATS is away).
     */
    restart: (name: string, options?: { waitUntilReady?: boolean; env?: Readonly<Record<string, string>> }) => launch(name, options),
    /** Resolves once `name` answers /readyz 200; rejects with its last lines if it exits or takes too long. */
    waitUntilReady: (name: string, timeoutMs = 60_000) => running.get(name)!.waitUntilReady(timeoutMs),
    /** Resolves with how long the restart took until ready (kill excluded). */
    killAndRestart: async (name: string): Promise<number> => {
      await kill(name);
      const started = Date.now();
      await launch(name);
      return Date.now() - started;
    },
    /** Starts again whatever exited on its own, so one scenario's crash does not spoil the next. */
    reviveExited: async () => {
      for (const [name, child] of running) if (!child.running) await launch(name);
    },
    pids: () => Object.fromEntries([...running].map(([name, child]) => [name, child.pid])),
    isRunning: (name: string) => running.get(name)?.running ?? false,
    /** Exits nobody asked for, since the start (a service that dies on a fault is a bug). */
    unexpectedExits: () => [...unexpectedExits],
    describeUnexpectedExits: (since = 0) =>
      unexpectedExits
        .filter((exit) => exit.at >= since)
        .map(({ name, exit }) => `${name} exited with ${describeExit(exit)}; its last lines:\n${(logs.get(name) ?? []).slice(-30).join('\n')}`)
        .join('\n\n'),
    /** The last lines (warn and above) each service wrote, for failure messages. */
    logTail: (name: string, lines = 30) => (logs.get(name) ?? []).slice(-lines).join('\n'),
    client: (apiKey: string): InvoicingClient => createInvoicingClient({ baseUrl: gatewayUrl, apiKey, retry: RIDE_OUT_RESTARTS }),
    mintKey: (workspace: string, scopes = 'all'): Promise<MintedKey> => mintApiKey(databaseUrl, workspace, scopes, inherited),
    stop: stopEverything,
  };
};
export type FaultPlatform = Awaited<ReturnType<typeof startFaultPlatform>>;

const createDatabase = async (serverUrl: string, name: string): Promise<string> => {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    await client.query(`create database "${name}"`);
  } finally {
    await client.end();
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
};
