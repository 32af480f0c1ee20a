import { listenOn, StartUp, type EventBus, type ServiceDefinition } from '@invoicing/service-kit';
import type { FastifyInstance } from 'fastify';
import { GATEWAY } from './platform.ts';

export interface HostedService {
  name: string;
  url: string;
}

export interface InProcessHostOptions {
  /** In start order, the gateway last. */
  definitions: readonly ServiceDefinition[];
  portOf: (name: string) => number;
  gatewayHost: string;
  /** Settings shared by every service (see `serviceEnvironment`). */
  environment: NodeJS.ProcessEnv;
  /** One bus for every service, so billing's events reach documents and notifications in this process. */
  bus: EventBus;
}

export interface InProcessHost {
  services: readonly HostedService[];
  /**
   * Settles once every service serves: each listens at once, then waits for PostgreSQL (answering
   * 503 meanwhile) and starts its workers. Rejects with what a person must fix, such as a failed migration.
   */
  started: Promise<void>;
  /** Stops the gateway first, so no request reaches a stopping service, then the others, then the bus. */
  stop: () => Promise<void>;
}

/**
 * Runs every service in this process, each on its own port as if deployed alone, sharing one event
 * bus: with NATS_URL unset that is the in-process bus, so the one-machine start needs no NATS.
 */
export const hostInProcess = async ({ definitions, portOf, gatewayHost, environment, bus }: InProcessHostOptions): Promise<InProcessHost> => {
  const apps: { name: string; app: FastifyInstance }[] = [];
  const services: HostedService[] = [];
  const startUps: Promise<void>[] = [];
  let stopping: Promise<void> | undefined;
  const stop = () =>
    (stopping ??= (async () => {
      await Promise.all(apps.filter(({ name }) => name === GATEWAY).map(({ app }) => app.close()));
      await Promise.all(apps.filter(({ name }) => name !== GATEWAY).map(({ app }) => app.close()));
      await bus.close();
    })());

  const launch = async (definition: ServiceDefinition, host: string) => {
    const port = portOf(definition.name);
    const config = definition.loadConfig({ ...environment, HOST: host, PORT: String(port) });
    const unit = await definition.create(config, { bus });
    apps.push({ name: definition.name, app: unit.app });
    const startUp = new StartUp(unit);
    await listenOn(unit.app, host, port);
    services.push({ name: definition.name, url: `http://${host}:${port}` });
    const running = startUp.run().catch((error: unknown) => Promise.reject(new Error(`${definition.name}: ${error instanceof Error ? error.message : String(error)}`)));
    // Marked as handled now: if another service fails to listen, nobody awaits `started`.
    running.catch(() => {});
    startUps.push(running);
  };

  try {
    await Promise.all(definitions.filter(({ name }) => name !== GATEWAY).map((definition) => launch(definition, '127.0.0.1')));
    for (const definition of definitions.filter(({ name }) => name === GATEWAY)) await launch(definition, gatewayHost);
  } catch (error) {
    await stop();
    throw error;
  }
  const started = Promise.all(startUps).then(() => {});
  return { services, started, stop };
};
