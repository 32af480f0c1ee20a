import {
  applyMigrations,
  createServiceClient,
  type EventBus,
  loggerOptions,
  observeOutboxLag,
  OutboxRelay,
  pingDatabase,
  prepareDatabase,
  type ServiceDefinition,
} from '@invoicing/service-kit';
import type { FastifyServerOptions } from 'fastify';
import { buildApp } from './app.ts';
import { loadConfig, loadMigrateConfig, type BillingConfig } from './config.ts';
import { BILLING_SCHEMA, openBillingDatabase } from './database.ts';
import { OverdueSweep } from './modules/invoices/overdue-sweep.ts';
import { catalogReader } from './shared/catalog.ts';
import { systemClock, type Clock } from './shared/clock.ts';

/**
 * `action` once, `delayMs` after the first of a burst of calls: commits close together then share
 * one relay batch (one claim, one mark) instead of one each.
 */
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

export interface BillingServiceDeps {
  /** The event bus, owned by whoever hosts the service: several services may share one. */
  bus: EventBus;
  logger?: FastifyServerOptions['logger'];
  clock?: Clock;
}

/**
 * Billing as a unit a host can run: the HTTP app, the outbox relay and the overdue sweep on one
 * database pool. It owns nothing process-wide (no signals, no exit, no bus), so one process may host
 * it beside other services; `stop` (or closing the app) stops its workers and closes its pool.
 */
export const createBillingService = async (config: BillingConfig, { bus, logger, clock = systemClock }: BillingServiceDeps) => {
  const orm = await openBillingDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
  const catalogClient = createServiceClient({
    baseUrl: config.CATALOG_URL,
    name: 'catalog',
    internalToken: config.INTERNAL_TOKEN,
    timeoutMs: config.CATALOG_TIMEOUT_MS,
  });
  let relay: OutboxRelay | undefined;
  const announce = coalesced(() => relay?.nudge(), config.OUTBOX_NUDGE_DELAY_MS);
  const app = buildApp({
    orm,
    internalToken: config.INTERNAL_TOKEN,
    catalog: catalogReader(catalogClient),
    clock,
    publicUrlBase: config.PUBLIC_URL_BASE,
    announce,
    checkReadiness: async () => {
      await pingDatabase(orm);
      await bus.ping();
    },
    logger: logger ?? loggerOptions('billing', config.LOG_LEVEL),
    idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
    finalizeBatchMax: config.FINALIZE_BATCH_MAX,
  });
  relay = new OutboxRelay({
    orm,
    schema: BILLING_SCHEMA,
    bus,
    pollMs: config.OUTBOX_POLL_MS,
    onError: (error) => app.log.warn({ err: error }, 'outbox relay: publish failed; the events stay in the outbox and go out on retry'),
  });
  observeOutboxLag(app.metrics, () => relay.lag());
  const sweep = new OverdueSweep({
    orm,
    clock,
    publicUrlBase: config.PUBLIC_URL_BASE,
    intervalMs: config.OVERDUE_SWEEP_INTERVAL_MS,
    announce,
    onError: (error) => app.log.error({ err: error }, 'overdue sweep failed; it runs again at the next interval'),
  });
  app.addHook('onClose', async () => {
    announce.cancel();
    await sweep.stop();
    await relay?.stop();
    await catalogClient.close();
    await orm.close();
  });

  const prepare = () => prepareDatabase(orm, BILLING_SCHEMA, config.DATABASE_URL);
  /** Starts the relay and the sweep. */
  const startWorkers = async () => {
    relay.start();
    sweep.start();
  };

  return {
    app,
    orm,
    relay,
    sweep,
    /** Creates the database if missing and applies pending migrations; a host retries it while PostgreSQL is away. */
    prepareDatabase: prepare,
    startWorkers,
    /** Both, at once: what tests do. */
    start: async () => {
      await prepare();
      await startWorkers();
    },
    stop: () => app.close(),
  };
};

export type BillingService = Awaited<ReturnType<typeof createBillingService>>;

/** Billing as its hosts run it: alone (`main.ts`) or beside the other services on one bus (`npm start`). */
export const billingService: ServiceDefinition<BillingConfig> = {
  name: 'billing',
  usesEvents: true,
  loadConfig,
  create: (config, { bus }) => createBillingService(config, { bus }),
  migrate: (env) => applyMigrations(loadMigrateConfig(env).DATABASE_URL, BILLING_SCHEMA, openBillingDatabase),
};
