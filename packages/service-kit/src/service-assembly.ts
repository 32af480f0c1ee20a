import type { FastifyBaseLogger, FastifyInstance, FastifyServerOptions } from 'fastify';
import { pingDatabase, prepareDatabase, type Orm } from './database.ts';
import type { EventBus } from './events/event-bus.ts';
import { OutboxRelay } from './events/outbox.ts';
import { loggerOptions } from './logging.ts';
import { observeOutboxLag } from './metrics.ts';

/** A background job of a service: started once its database is ready, stopped when its app closes. */
export interface ServiceWorker {
  start: () => void | Promise<void>;
  stop?: () => Promise<void>;
}

export interface OutboxSettings {
  /** `OUTBOX_POLL_MS`: how often the relay looks for rows when nobody announces any. */
  pollMs: number;
  /**
   * When set, announcements within this many ms share one relay batch (one claim, one mark)
   * instead of one each; unset, every announcement nudges the relay at once.
   */
  nudgeDelayMs?: number;
}

export interface ServiceAssemblyOptions<Outbox extends OutboxSettings | undefined> {
  /** The service's name, for its logger. */
  name: string;
  /**
   * The event bus, owned by whoever hosts the service (several services may share one); only for a
   * service that publishes or consumes events. Without one, readiness asks no bus and there is no outbox.
   */
  bus?: EventBus | undefined;
  database: { url: string; poolSize: number; schema: string; open: (url: string, poolSize: number) => Promise<Orm> };
  logLevel: string;
  /** A logger the host chose (tests); otherwise the service's own at `logLevel`. */
  logger?: FastifyServerOptions['logger'];
  /** For services that publish events: their outbox, relayed to the bus. */
  outbox?: Outbox;
}

/** What every service's app is built from. */
export type ServiceParts<Outbox extends OutboxSettings | undefined> = {
  orm: Orm;
  logger: FastifyServerOptions['logger'];
  /** `/readyz`: the database answers, and the bus too when the service has one. */
  checkReadiness: () => Promise<void>;
} & (Outbox extends OutboxSettings
  ? {
      relay: OutboxRelay;
      /** Call after a commit that added outbox rows, so they go out now rather than at the next poll. */
      announce: () => void;
    }
  : object);

/** What a service declares: its app, what it runs in the background, and what it must close. */
export interface ServiceBuild {
  app: FastifyInstance;
  /** Started in order (after the outbox relay) once the database is ready; stopped in reverse when the app closes. */
  workers?: ServiceWorker[];
  /** Closed, in order, after the workers stopped and before the database pool. */
  closeAfterWorkers?: ({ close: () => Promise<unknown> } | undefined)[];
}

export type AssembledService<Built extends ServiceBuild, Outbox extends OutboxSettings | undefined> = Omit<Built, 'workers' | 'closeAfterWorkers'> & {
  app: Built['app'];
  orm: Orm;
  /** Creates the database if missing and applies pending migrations; a host retries it while PostgreSQL is away. */
  prepareDatabase: () => Promise<void>;
  /** Starts the outbox relay, then the service's workers. */
  startWorkers: () => Promise<void>;
  /** Both, at once: what tests do. */
  start: () => Promise<void>;
  /** Closes the app, which stops the workers and closes the pool. */
  stop: () => Promise<void>;
} & (Outbox extends OutboxSettings ? { relay: OutboxRelay } : object);

/** `action` once, `delayMs` after the first of a burst of calls. */
const coalesced = (action: () => void, delayMs: number) => {
  let timer: NodeJS.Timeout | undefined;
  const call = () => {
    timer ??= setTimeout(() => {
      timer = undefined;
      action();
    }, delayMs);
  };
  return Object.assign(call, { cancel: () => clearTimeout(timer) });
};

/**
 * A service as a unit a host can run: opens its database pool, relays its outbox (when it has one)
 * with the outbox lag metric, purges its keyed writes (when its app records any, see
 * `createServiceApp`), and ties everything's lifetime to the app's. `build` declares only what
 * differs: the app and its workers. The unit owns nothing process-wide (no signals, no exit, no
 * bus), so one process may host it beside other services; closing the app stops the workers
 * (newest first, the relay last) and closes what `build` listed, then the pool.
 */
export const assembleService = async <Built extends ServiceBuild, Outbox extends OutboxSettings | undefined = undefined>(
  options: ServiceAssemblyOptions<Outbox>,
  build: (parts: ServiceParts<Outbox>) => Built | Promise<Built>,
): Promise<AssembledService<Built, Outbox>> => {
  const { name, bus, database, outbox } = options;
  if (outbox && !bus) throw new Error(`${name}: an outbox is relayed to an event bus, so the service needs one`);
  const orm = await database.open(database.url, database.poolSize);
  // The relay reports through the app's logger, which exists once `build` returns; it starts later still.
  let log: FastifyBaseLogger | undefined;
  const relay =
    outbox && bus
      ? new OutboxRelay({
          orm,
          schema: database.schema,
          bus,
          pollMs: outbox.pollMs,
          onError: (error) => log?.warn({ err: error }, 'outbox relay: publish failed; the events stay in the outbox and go out on retry'),
        })
      : undefined;
  const announce = relay && (outbox?.nudgeDelayMs === undefined ? Object.assign(() => relay.nudge(), { cancel: () => {} }) : coalesced(() => relay.nudge(), outbox.nudgeDelayMs));
  const parts = {
    orm,
    logger: options.logger ?? loggerOptions(name, options.logLevel),
    checkReadiness: async () => {
      await pingDatabase(orm);
      await bus?.ping();
    },
    ...(relay && { relay, announce }),
  } as ServiceParts<Outbox>;
  const { app, workers: ownWorkers = [], closeAfterWorkers = [], ...rest } = await build(parts);
  log = app.log;
  if (relay) observeOutboxLag(app.metrics, () => relay.lag());
  // Not at start-up of the app, which listens before its migrations have run: a worker starts after them.
  const keyedWritesPurge = app.keyedWrites?.writes.purgeTask((error) => app.log.warn({ err: error }, 'could not purge idempotency records'));
  const workers: ServiceWorker[] = [...(relay ? [relay] : []), ...(keyedWritesPurge ? [keyedWritesPurge] : []), ...ownWorkers];
  app.addHook('onClose', async () => {
    announce?.cancel();
    for (const worker of workers.toReversed()) await worker.stop?.();
    for (const closable of closeAfterWorkers) await closable?.close();
    await orm.close();
  });

  const prepare = () => prepareDatabase(orm, database.schema, database.url);
  const startWorkers = async () => {
    for (const worker of workers) await worker.start();
  };
  return {
    ...rest,
    app,
    orm,
    ...(relay && { relay }),
    prepareDatabase: prepare,
    startWorkers,
    start: async () => {
      await prepare();
      await startWorkers();
    },
    stop: () => app.close(),
  } as unknown as AssembledService<Built, Outbox>;
};
