import { applyMigrations, assembleService, createServiceClient, type ServiceDefinition, type ServiceDeps } from '@invoicing/service-kit';
import { systemClock } from '@invoicing/service-kit/clock';
import { buildApp } from './app.ts';
import { loadConfig, loadMigrateConfig, type BillingConfig } from './config.ts';
import { BILLING_SCHEMA, openBillingDatabase } from './database.ts';
import { OverdueSweep } from './modules/invoices/overdue-sweep.ts';
import { catalogReader } from './shared/catalog.ts';

/**
 * Billing as a unit a host can run: the HTTP app, the outbox relay and the overdue sweep on one
 * database pool. It owns nothing process-wide (no signals, no exit, no bus), so one process may host
 * it beside other services; `stop` (or closing the app) stops its workers and closes its pool.
 */
export const createBillingService = (config: BillingConfig, { bus, logger, clock = systemClock }: ServiceDeps) =>
  assembleService(
    {
      name: 'billing',
      bus,
      logger,
      logLevel: config.LOG_LEVEL,
      database: { url: config.DATABASE_URL, poolSize: config.DATABASE_POOL_SIZE, schema: BILLING_SCHEMA, open: openBillingDatabase },
      // Commits close together share one relay batch (one claim, one mark) instead of one each.
      outbox: { pollMs: config.OUTBOX_POLL_MS, nudgeDelayMs: config.OUTBOX_NUDGE_DELAY_MS },
    },
    ({ orm, logger, checkReadiness, announce }) => {
      const catalogClient = createServiceClient({
        baseUrl: config.CATALOG_URL,
        name: 'catalog',
        internalToken: config.INTERNAL_TOKEN,
        timeoutMs: config.CATALOG_TIMEOUT_MS,
      });
      const app = buildApp({
        orm,
        internalToken: config.INTERNAL_TOKEN,
        catalog: catalogReader(catalogClient),
        clock,
        publicUrlBase: config.PUBLIC_URL_BASE,
        announce,
        checkReadiness,
        logger,
        idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
        finalizeBatchMax: config.FINALIZE_BATCH_MAX,
      });
      const sweep = new OverdueSweep({
        orm,
        clock,
        publicUrlBase: config.PUBLIC_URL_BASE,
        intervalMs: config.OVERDUE_SWEEP_INTERVAL_MS,
        announce,
        onError: (error) => app.log.error({ err: error }, 'overdue sweep failed; it runs again at the next interval'),
      });
      return { app, sweep, workers: [sweep], closeAfterWorkers: [catalogClient] };
    },
  );

export type BillingService = Awaited<ReturnType<typeof createBillingService>>;

/** Billing as its hosts run it: alone (`main.ts`) or beside the other services on one bus (`npm start`). */
export const billingService: ServiceDefinition<BillingConfig> = {
  name: 'billing',
  usesEvents: true,
  loadConfig,
  create: (config, { bus }) => createBillingService(config, { bus }),
  migrate: (env) => applyMigrations(loadMigrateConfig(env).DATABASE_URL, BILLING_SCHEMA, openBillingDatabase),
};
