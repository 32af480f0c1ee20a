import { GATEWAY, serviceEnvironment, type PlatformOptions } from '../deploy/local/platform.ts';
import { ServiceProcess } from '../deploy/local/service-process.ts';

const READY_TIMEOUT_MS = 60_000;

/**
 * The services of one section as child processes, like `launchPlatform`, except that one of them
 * can be started again with other settings (billing with FINALIZE_BATCH_MAX=1, say) on the same
 * port while the others keep running.
 */
export interface BenchPlatform {
  gatewayUrl: string;
  urls: Readonly<Record<string, string>>;
  /** Each running service's process id, by name, the gateway last. */
  pids: () => { name: string; pid: number }[];
  /** Stops `name`, then starts it on the same port with `env` on top of the settings it started with. */
  restart: (name: string, env: Readonly<Record<string, string>>) => Promise<void>;
  stop: () => Promise<void>;
}

export const launchBenchPlatform = async (
  options: Pick<PlatformOptions, 'services' | 'ports' | 'gateway' | 'databaseUrl' | 'internalToken' | 'logLevel' | 'natsUrl' | 'inherited' | 'extraEnv' | 'sink'>,
): Promise<BenchPlatform> => {
  const upstreams = options.services.filter((name) => name !== GATEWAY);
  const portOf = (name: string): number => (name === GATEWAY ? options.gateway.port : options.ports[name]!);
  const common = serviceEnvironment(options, upstreams.map((name) => [name, portOf(name)] as const));
  const running = new Map<string, ServiceProcess>();

  const start = async (name: string, env: Readonly<Record<string, string>> = {}) => {
    const host = name === GATEWAY ? options.gateway.host : '127.0.0.1';
    const child = new ServiceProcess(name, portOf(name), { ...common, HOST: host, PORT: String(portOf(name)), ...env }, options.sink);
    running.set(name, child);
    await child.waitUntilReady(READY_TIMEOUT_MS);
  };
  const stop = async () => {
    await running.get(GATEWAY)?.stop();
    await Promise.all([...running.entries()].filter(([name]) => name !== GATEWAY).map(([, child]) => child.stop()));
  };

  try {
    await Promise.all(upstreams.map((name) => start(name)));
    if (options.services.includes(GATEWAY)) await start(GATEWAY);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${options.gateway.port}`,
    urls: Object.fromEntries(options.services.map((name) => [name, `http://127.0.0.1:${portOf(name)}`])),
    pids: () => [...running.entries()].flatMap(([name, child]) => (child.pid === undefined ? [] : [{ name, pid: child.pid }])),
    restart: async (name, env) => {
      const child = running.get(name);
      if (!child) throw new Error(`${name} is not running`);
      await child.stop();
      await start(name, env);
    },
    stop,
  };
};
