import { createServiceClient, defineService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { BILLING_SCHEMA, openBillingDatabase } from './database.ts';
import { OverdueSweep } from './modules/invoices/overdue-sweep.ts';
import { catalogReader } from './shared/catalog.ts';

/**
 * Billing as its hosts run it (alone, beside the other services on one bus, or in its tests): the
 * HTTP app, the outbox relay and the overdue sweep on one database pool.
 */
export const billingService = defineService({
  name: 'billing',
  loadConfig,
  database: { schema: BILLING_SCHEMA, open: openBillingDatabase },
  usesEvents: true,
  // Commits close together share one relay batch (one claim, one mark) instead of one each.
  outbox: (config) => ({ pollMs: config.OUTBOX_POLL_MS, nudgeDelayMs: config.OUTBOX_NUDGE_DELAY_MS }),
  build: ({ config, orm, logger, clock, checkReadiness, announce }) => {
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
});

export type BillingService = Awaited<ReturnType<typeof billingService.create>>;
