import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { createTestDatabase, freePort, NatsServerProcess, natsUrl } from '@invoicing/testing';
import { createInvoicingClient, type InvoicingClient } from '@invoicing/client';
import { mintApiKey, type MintedKey } from '../../deploy/local/operator.ts';
import { GATEWAY, generateInternalToken, launchPlatform, type PlatformOptions } from '../../deploy/local/platform.ts';
import { PortTakenError } from '../../deploy/local/service-process.ts';
import { SERVICE_NAMES } from '../../deploy/local/services.ts';
export type ApiClient = InvoicingClient;

export interface SystemOptions {
  /** Services besides the gateway; default: every service in the repository. */
  services?: readonly string[];
  /** Settings for every service on top of the defaults (such as RATE_LIMIT_MAX). */
  env?: Readonly<Record<string, string>>;
  /**
   * A NATS server of this system's own instead of the run's: durable consumer names are fixed, so
   * two systems consuming one stream on a shared server would each get only part of the events.
   */
  ownNats?: boolean;
  /** LOG_LEVEL of every service (default warn). */
  logLevel?: string;
  /** Receives each line a service writes, with its name. */
  onLogLine?: (service: string, line: string) => void;
}

export interface TestSystem {
  gatewayUrl: string;
  databaseUrl: string;
  /** Base URL of each service, for tests that must reach one without the gateway. */
  urls: Readonly<Record<string, string>>;
  internalToken: string;
  /** A typed client of the public API, sending this key (none: unauthenticated). */
  client: (key?: string) => ApiClient;
  /** Mints a key with the operator command, as an operator would: live unless `mode` says test. */
  mintKey: (workspace: string, scopes: string, mode?: 'live' | 'test') => Promise<MintedKey>;
  stop: () => Promise<void>;
}

/**
 * The platform on ports free when chosen. Another test file's system may take one of them before
 * our service listens on it (files run side by side): the launcher notices (PortTakenError) and
 * the whole platform starts again on other ports.
 */
const launchOnFreePorts = async (options: Omit<PlatformOptions, 'ports' | 'gateway'>, attempts = 3): ReturnType<typeof launchPlatform> => {
  const ports = Object.fromEntries(await Promise.all(options.services.map(async (name) => [name, await freePort()] as const)));
  try {
    return await launchPlatform({ ...options, ports, gateway: { host: '127.0.0.1', port: ports[GATEWAY]! } });
  } catch (error) {
    if (error instanceof PortTakenError && attempts > 1) return launchOnFreePorts(options, attempts - 1);
    throw error;
  }
};

/**
 * The real platform for black-box tests: each service's `main.ts` as its own process on a free
 * port, on a fresh database and the run's NATS, the gateway in front.
 */
export const startSystem = async ({ services, env = {}, ownNats = false, logLevel = 'warn', onLogLine }: SystemOptions = {}): Promise<TestSystem> => {
  const names = services ? [...services.filter((name) => name !== GATEWAY), GATEWAY] : SERVICE_NAMES;
  const database = await createTestDatabase('e2e');
  const nats = ownNats ? await NatsServerProcess.launch() : undefined;
  const internalToken = generateInternalToken();
  const inherited = { PATH: process.env.PATH ?? '' };
  const options: Omit<PlatformOptions, 'ports' | 'gateway'> = {
    services: names,
    databaseUrl: database.url,
    internalToken,
    logLevel,
    ...(onLogLine ? { sink: onLogLine } : {}),
    natsUrl: nats?.url ?? natsUrl(),
    inherited,
    // Messages sent without SMTP_URL are written here rather than under the repository's .data.
    extraEnv: { MAIL_DIR: join(tmpdir(), 'invoicing-test-mail'), ...env },
  };
  const platform = await launchOnFreePorts(options).catch(async (error: unknown) => {
    await nats?.dispose();
    await database.drop();
    throw error;
  });
  const { gatewayUrl } = platform;
  return {
    gatewayUrl,
    databaseUrl: database.url,
    urls: platform.urls,
    internalToken,
    client: (key) => createInvoicingClient({ baseUrl: gatewayUrl, ...(key ? { apiKey: key } : {}) }),
    mintKey: (workspace, scopes, mode = 'live') => mintApiKey(database.url, workspace, scopes, inherited, mode),
    stop: async () => {
      await platform.stop();
      await nats?.dispose();
      await database.drop();
    },
  };
};
