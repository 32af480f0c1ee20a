import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { ConfigError, parseConfig } from './config.ts';
import type { EventBus } from './events/event-bus.ts';
import { connectEventBus, eventBusSettings } from './events/connect-event-bus.ts';
import { createInProcessBus } from './events/in-process-bus.ts';
import { runService } from './run-service.ts';
import { parseTracingSettings, startTracing } from './tracing.ts';

/** A created service: its app (not listening yet) and the work that must precede listening. */
export interface ServiceUnit {
  app: FastifyInstance;
  /** Applies pending migrations and starts background workers (relays, consumers, sweeps). */
  start: () => Promise<void>;
}

export interface HostDeps {
  /** Owned by the host: one process may run several services on one bus. */
  bus: EventBus;
}

/**
 * What a host needs to run a service: the same definition serves `main.ts` (one service per
 * process, for separate deployment) and `npm start` (every service in one process, one bus).
 * A service owns nothing process-wide: no signals, no exit, no bus of its own.
 */
export interface ServiceDefinition<Config extends { HOST: string; PORT: number } = { HOST: string; PORT: number }> {
  name: string;
  /** Whether it publishes or consumes events; a service that does not never connects to NATS. */
  usesEvents: boolean;
  loadConfig: (env: NodeJS.ProcessEnv) => Config;
  create: (config: Config, deps: HostDeps) => Promise<ServiceUnit>;
  /** Applies the service's migrations to the database its settings name, then returns. */
  migrate: (env: NodeJS.ProcessEnv) => Promise<void>;
}

/** Runs `load`; invalid settings end the process with a readable message instead of a stack trace. */
const loadOrExit = <T>(name: string, load: () => T): T => {
  const exit = (error: unknown): never => {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`${name}: ${error.message}`);
    process.exit(1);
  };
  try {
    const result = load();
    return (result instanceof Promise ? result.catch(exit) : result) as T;
  } catch (error) {
    return exit(error);
  }
};

/** `main.ts` of every service: settings from the environment, its own bus, listen until a signal. */
export const runStandalone = async <Config extends { HOST: string; PORT: number }>(definition: ServiceDefinition<Config>): Promise<void> => {
  const config = loadOrExit(definition.name, () => definition.loadConfig(process.env));
  const busSettings = loadOrExit(definition.name, () => parseConfig(z.object(eventBusSettings), process.env));
  const stopTracing = startTracing(definition.name, loadOrExit(definition.name, () => parseTracingSettings(process.env)));
  let unit: ServiceUnit | undefined;
  // The bus reports from its first connection attempt on, before the app and its logger exist.
  const reportBusError = (error: unknown, context: string) =>
    unit ? unit.app.log.error({ err: error, context }, 'event bus') : console.error(`${definition.name}: event bus (${context}): ${error instanceof Error ? error.message : String(error)}`);
  const reportBusNotice = (message: string) => (unit ? unit.app.log.info(`event bus: ${message}`) : console.error(`${definition.name}: event bus: ${message}`));
  const bus = definition.usesEvents ? await connectEventBus(busSettings, definition.name, reportBusError, reportBusNotice) : createInProcessBus();
  unit = await definition.create(config, { bus });
  await unit.start();
  const onClosed = async () => {
    await bus.close();
    await stopTracing();
  };
  await runService({ app: unit.app, host: config.HOST, port: config.PORT, onClosed });
};

/** `migrate.ts` of every service: apply migrations, say so, exit. */
export const migrateStandalone = async <Config extends { HOST: string; PORT: number }>(definition: ServiceDefinition<Config>): Promise<void> => {
  await loadOrExit(definition.name, () => definition.migrate(process.env));
  console.log(`${definition.name}: migrations applied`);
};
