import { randomBytes } from 'node:crypto';
import { describeExit, ServiceProcess, type Exit, type LineSink } from './service-process.ts';

export const GATEWAY = 'gateway';

/** The gateway setting that names a service's address: `catalog` → `CATALOG_URL`. */
export const upstreamUrlVariable = (service: string): string => `${service.toUpperCase()}_URL`;

/** Where clients reach the gateway, as the gateway itself names it: public invoice links start with it. */
const publicOrigin = ({ host, port }: { host: string; port: number }): string =>
  `http://${['0.0.0.0', '::', '127.0.0.1', '::1'].includes(host) ? 'localhost' : host}:${port}`;

/** The credential the gateway and the services share for one run. */
export const generateInternalToken = (): string => randomBytes(32).toString('base64url');

export interface PlatformOptions {
  /** Services to run, the gateway among them. */
  services: readonly string[];
  /** Port of each upstream service, by name. */
  ports: Readonly<Record<string, number>>;
  gateway: { host: string; port: number };
  databaseUrl: string;
  internalToken: string;
  logLevel: string;
  natsUrl?: string | undefined;
  /** The environment every service starts from. */
  inherited: NodeJS.ProcessEnv;
  /** Settings on top, for every service (such as RATE_LIMIT_MAX for the benchmark). */
  extraEnv?: Readonly<Record<string, string>>;
  sink?: LineSink;
  readyTimeoutMs?: number;
  /** Aborting it during start-up stops what has started and rejects. */
  signal?: AbortSignal;
}

export interface RunningService {
  name: string;
  url: string;
  pid: number | undefined;
}

export interface Platform {
  gatewayUrl: string;
  /** Base URL of each service, by name. */
  urls: Readonly<Record<string, string>>;
  /** In start order, the gateway last. */
  services: readonly RunningService[];
  /** Settles when a service exits before `stop` was called. */
  unexpectedExit: Promise<{ name: string; exit: Exit }>;
  /** Stops the gateway first, so no request reaches a stopping service, then the others. */
  stop: () => Promise<void>;
}

/**
 * The settings every service of one run gets: where the other services are (billing calls
 * catalog, say), the public origin, the database, the shared internal token, the bus.
 */
export const serviceEnvironment = (
  options: Pick<PlatformOptions, 'gateway' | 'inherited' | 'databaseUrl' | 'internalToken' | 'logLevel' | 'natsUrl' | 'extraEnv'>,
  upstreamPorts: readonly (readonly [string, number])[],
): NodeJS.ProcessEnv => ({
  PUBLIC_URL_BASE: publicOrigin(options.gateway),
  ...options.inherited,
  ...Object.fromEntries(upstreamPorts.map(([name, port]) => [upstreamUrlVariable(name), `http://127.0.0.1:${port}`])),
  DATABASE_URL: options.databaseUrl,
  INTERNAL_TOKEN: options.internalToken,
  LOG_LEVEL: options.logLevel,
  ...(options.natsUrl ? { NATS_URL: options.natsUrl } : {}),
  ...options.extraEnv,
});

/**
 * Starts the services as child processes on one database: upstreams first, in parallel, then the
 * gateway pointed at them; resolves once every `/readyz` answers.
 */
export const launchPlatform = async (options: PlatformOptions): Promise<Platform> => {
  const { services, ports, gateway, readyTimeoutMs = 60_000 } = options;
  const upstreams = services.filter((name) => name !== GATEWAY);
  const portOf = (name: string): number => {
    const port = ports[name];
    if (port === undefined) throw new Error(`No port for the service ${name}`);
    return port;
  };
  const common = serviceEnvironment(options, upstreams.map((name) => [name, portOf(name)]));

  const started: ServiceProcess[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(started.filter((child) => child.name === GATEWAY).map((child) => child.stop()));
      await Promise.all(started.filter((child) => child.name !== GATEWAY).map((child) => child.stop()));
    })());
  const launch = async (name: string, host: string, port: number): Promise<ServiceProcess> => {
    const child = new ServiceProcess(name, port, { ...common, HOST: host, PORT: String(port) }, options.sink);
    started.push(child);
    await child.waitUntilReady(readyTimeoutMs);
    return child;
  };

  options.signal?.throwIfAborted();
  const onAbort = () => void stop();
  options.signal?.addEventListener('abort', onAbort, { once: true });
  try {
    await Promise.all(upstreams.map((name) => launch(name, '127.0.0.1', portOf(name))));
    if (services.includes(GATEWAY)) await launch(GATEWAY, gateway.host, gateway.port);
  } catch (error) {
    await stop();
    throw error;
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
  }

  const unexpectedExit = Promise.race(
    started.map((child) => child.exited.then((exit) => ({ name: child.name, exit }))),
  ).then((first) => (stopping ? new Promise<never>(() => {}) : first));

  return {
    gatewayUrl: `http://127.0.0.1:${gateway.port}`,
    urls: Object.fromEntries(started.map((child) => [child.name, child.url])),
    services: started.map(({ name, url, pid }) => ({ name, url, pid })),
    unexpectedExit,
    stop,
  };
};
