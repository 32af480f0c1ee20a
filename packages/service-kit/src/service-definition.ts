import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { Clock } from './clock.ts';
import { z } from 'zod';
import { ConfigError, parseConfig } from './config.ts';
import type { EventBus } from './events/event-bus.ts';
import { connectEventBus, eventBusSettings } from './events/connect-event-bus.ts';
import { createInProcessBus } from './events/in-process-bus.ts';
import { PortInUseError, runService, StartUp, type StartUpSteps } from './run-service.ts';
import { parseTracingSettings, startTracing } from './tracing.ts';

/**
 * A created service: its app (not listening yet, and not yet connected to PostgreSQL) and what
 * must happen before it serves. Hosts listen first and run these through `StartUp`, so a service
 * started while PostgreSQL is away answers 503 and becomes ready by itself once it returns.
 */
export interface ServiceUnit extends StartUpSteps {
  app: FastifyInstance;
}

export interface HostDeps {
  /** Owned by the host: one process may run several services on one bus. */
  bus: EventBus;
}

/** What a service is created with: its host's bus, and for tests a logger and a clock of their own. */
export interface ServiceDeps extends HostDeps {
  logger?: FastifyServerOptions['logger'];
  /** The time the service's rules read; the system clock unless a test sets one. */
  clock?: Clock;
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

/** Ends the process over what a person must fix, with one line that says what. */
const exitWith = (line: string): never => {
  console.error(line);
  process.exit(1);
};

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
  const startUp = new StartUp(unit);
  const onClosed = async () => {
    await bus.close();
    await stopTracing();
  };
  try {
    await runService({ app: unit.app, host: config.HOST, port: config.PORT, onClosed });
  } catch (error) {
    if (!(error instanceof PortInUseError)) throw error;
    exitWith(`${definition.name}: port ${config.PORT} is already in use (set PORT to use another)`);
  }
  // Listening already: a database that is away delays readiness, not the process.
  await startUp.run().catch((error: unknown) => exitWith(`${definition.name}: start-up failed: ${error instanceof Error ? error.message : String(error)}`));
};

/** `migrate.ts` of every service: apply migrations, say so, exit. */
export const migrateStandalone = async <Config extends { HOST: string; PORT: number }>(definition: ServiceDefinition<Config>): Promise<void> => {
  await loadOrExit(definition.name, () => definition.migrate(process.env));
  console.log(`${definition.name}: migrations applied`);
};
