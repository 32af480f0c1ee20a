import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { z } from 'zod';
import { systemClock, type Clock } from './clock.ts';
import { ConfigError, parseConfig, serviceSettings } from './config.ts';
import { applyMigrations, type Orm } from './database.ts';
import type { EventBus } from './events/event-bus.ts';
import { connectEventBus, eventBusSettings } from './events/connect-event-bus.ts';
import { createInProcessBus } from './events/in-process-bus.ts';
import { PortInUseError, runService, StartUp, type StartUpSteps } from './run-service.ts';
import { assembleService, type AssembledService, type OutboxSettings, type ServiceBuild, type ServiceParts } from './service-assembly.ts';
import { parseTracingSettings, startTracing } from './tracing.ts';

/**
 * A created service: its app (not listening yet, and not yet connected to PostgreSQL) and what
 * must happen before it serves. Hosts listen first and run these through `StartUp`, so a service
 * started while PostgreSQL is away answers 503 and becomes ready by itself once it returns.
 */
export interface ServiceUnit extends StartUpSteps {
  app: FastifyInstance;
}

/** What a service is created with: its host's bus, and for tests a logger and a clock of their own. */
export interface ServiceDeps {
  /** Owned by the host: one process may run several services on one bus. */
  bus: EventBus;
  logger?: FastifyServerOptions['logger'];
  /** The time the service's rules read; the system clock unless a test sets one. */
  clock?: Clock;
}

/** Where a service listens: every service's settings have these. */
export interface ListenSettings {
  HOST: string;
  PORT: number;
}

/** The settings `defineService` reads itself; every service's settings have them (`serviceSettings`). */
export type ServiceSettings = ListenSettings & { DATABASE_URL: string; DATABASE_POOL_SIZE: number; LOG_LEVEL: string };

/**
 * What a host needs to run a service: the same definition serves `main.ts` (one service per
 * process, for separate deployment), `npm start` (every service in one process, one bus) and the
 * service's own tests (`create` with a logger and a clock). A service owns nothing process-wide:
 * no signals, no exit, no bus of its own. Methods, so that a list of services of different
 * settings is one type.
 */
export interface ServiceDefinition<Config extends ListenSettings = ListenSettings, Unit extends ServiceUnit = ServiceUnit> {
  readonly name: string;
  /** Whether it publishes or consumes events; a service that does not never connects to NATS. */
  readonly usesEvents: boolean;
  loadConfig(env: NodeJS.ProcessEnv): Config;
  create(config: Config, deps: ServiceDeps): Promise<Unit>;
  /** Applies the service's migrations to the database its settings name, then returns. */
  migrate(env: NodeJS.ProcessEnv): Promise<void>;
  /** The schema it owns, and how its ORM opens (for tools that work on its database, such as the committed SQL). */
  readonly database: DatabaseSpec;
}

/** A service's schema, and how its ORM opens (without connecting: a host starts before PostgreSQL may answer). */
export interface DatabaseSpec {
  schema: string;
  open: (url: string, poolSize: number) => Promise<Orm>;
}

/** What `build` gets: the assembled parts, with the service's settings, its host's bus and its clock. */
export type ServiceBuildParts<Config, Outbox extends OutboxSettings | undefined> = ServiceParts<Outbox> & { config: Config; bus: EventBus; clock: Clock };

export interface ServiceSpec<Config extends ServiceSettings, Built extends ServiceBuild, Outbox extends OutboxSettings | undefined> {
  name: string;
  /** Its settings from the environment; throws ConfigError, which the hosts turn into one line. */
  loadConfig: (env: NodeJS.ProcessEnv) => Config;
  database: DatabaseSpec;
  /** Whether it publishes or consumes events (default: no). One that does not never connects to NATS, and its readiness asks no bus. */
  usesEvents?: boolean;
  /** For services that publish events: their outbox, relayed to the bus. */
  outbox?: (config: Config) => Outbox;
  /** What differs: the app, its workers and what to close (see `ServiceBuild`). */
  build: (parts: ServiceBuildParts<Config, Outbox>) => Built | Promise<Built>;
}

/** The migrate command touches only the database, so it needs no internal token. */
const MigrateSettings = z.object({ DATABASE_URL: serviceSettings.DATABASE_URL });

/**
 * A service as every host runs it: `spec` names what differs (settings, schema, events, the app
 * and its workers); the kit does the rest the same way for every service (`assembleService`: the
 * pool, the outbox relay, the purge of keyed writes, readiness, closing in order; the migrate command).
 */
export const defineService = <Config extends ServiceSettings, Built extends ServiceBuild, Outbox extends OutboxSettings | undefined = undefined>(
  spec: ServiceSpec<Config, Built, Outbox>,
): ServiceDefinition<Config, AssembledService<Built, Outbox>> => {
  const { name, loadConfig, database, usesEvents = false, outbox, build } = spec;
  return {
    name,
    usesEvents,
    loadConfig,
    database,
    create: (config, { bus, logger, clock = systemClock }) =>
      assembleService<Built, Outbox>(
        {
          name,
          bus: usesEvents ? bus : undefined,
          logger,
          logLevel: config.LOG_LEVEL,
          database: { url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, ...database },
          ...(outbox && { outbox: outbox(config) }),
        },
        (parts) => build({ ...parts, config, bus, clock }),
      ),
    migrate: (env) => applyMigrations(parseConfig(MigrateSettings, env).DATABASE_URL, database.schema, database.open),
  };
};

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
export const runStandalone = async <Config extends ListenSettings>(definition: ServiceDefinition<Config>): Promise<void> => {
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
export const migrateStandalone = async <Config extends ListenSettings>(definition: ServiceDefinition<Config>): Promise<void> => {
  await loadOrExit(definition.name, () => definition.migrate(process.env));
  console.log(`${definition.name}: migrations applied`);
};
