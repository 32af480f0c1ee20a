import { createServiceClient, defineService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { openSubscriptionsDatabase, SUBSCRIPTIONS_SCHEMA } from './database.ts';
import { InvoiceScheduler } from './modules/subscriptions/invoice-scheduler.ts';
import { billingClient, catalogReader } from './shared/upstreams.ts';

/**
 * Subscriptions as its hosts run it (alone, beside the other services on one bus, or in its
 * tests): the HTTP app, the outbox relay and the invoice scheduler on one database pool.
 */
export const subscriptionsService = defineService({
  name: 'subscriptions',
  loadConfig,
  database: { schema: SUBSCRIPTIONS_SCHEMA, open: openSubscriptionsDatabase },
  usesEvents: true,
  outbox: (config) => ({ pollMs: config.OUTBOX_POLL_MS, nudgeDelayMs: 20 }),
  build: ({ config, orm, logger, clock, checkReadiness, announce }) => {
    const client = (baseUrl: string, name: string) =>
      createServiceClient({ baseUrl, name, internalToken: config.INTERNAL_TOKEN, timeoutMs: config.UPSTREAM_TIMEOUT_MS, connections: config.SUBSCRIPTION_SCHEDULER_CONCURRENCY + 8 });
    const catalogClient = client(config.CATALOG_URL, 'catalog');
    const billingHttp = client(config.BILLING_URL, 'billing');
    const billing = billingClient(billingHttp);
    const app = buildApp({
      orm,
      internalToken: config.INTERNAL_TOKEN,
      catalog: catalogReader(catalogClient),
      billing,
      announce,
      nudgeScheduler: (testClock) => {
        if (!testClock) return scheduler.nudge();
        scheduler.runClock(testClock.workspaceId, testClock.testClockId, testClock.at).catch((error: unknown) => app.log.error({ err: error }, 'invoice scheduler: a test clock’s first period stays due until the clock advances'));
      },
      runTestClock: (workspaceId, testClockId, at) => scheduler.runClock(workspaceId, testClockId, at),
      clock,
      checkReadiness,
      logger,
      idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
    });
    const scheduler = new InvoiceScheduler({
      orm,
      clock,
      billing,
      intervalMs: config.SUBSCRIPTION_SCHEDULER_INTERVAL_MS,
      concurrency: config.SUBSCRIPTION_SCHEDULER_CONCURRENCY,
      leaseMs: config.SUBSCRIPTION_CLAIM_LEASE_MS,
      announce,
      onError: (error) => app.log.error({ err: error }, 'invoice scheduler: the due periods stay due and are tried again'),
      onRefused: (subscriptionId, reason) => app.log.warn({ subscriptionId, reason }, 'invoice scheduler: billing refused a period’s invoice'),
    });
    return { app, scheduler, workers: [scheduler], closeAfterWorkers: [catalogClient, billingHttp] };
  },
});

export type SubscriptionsService = Awaited<ReturnType<typeof subscriptionsService.create>>;
