import { join } from 'node:path';
import { createServiceClient, defineService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { BILLING_SCHEMA, openBillingDatabase } from './database.ts';
import { OverdueSweep } from './modules/invoices/overdue-sweep.ts';
import { catalogReader } from './shared/catalog.ts';
import { emlFileTransport, smtpTransport } from './modules/messages/mail-transport.ts';
import { MailWorker, parseMailFrom } from './modules/messages/mail-worker.ts';
import { ReminderSweep } from './modules/messages/reminder-sweep.ts';
import { TestClockAdvancer } from './modules/test-clocks/test-clock-advancer.ts';
import { testClockNeighbours as createTestClockNeighbours } from './shared/test-clock-neighbours.ts';

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
    const documentsClient = createServiceClient({
      baseUrl: config.DOCUMENTS_URL,
      name: 'documents',
      internalToken: config.INTERNAL_TOKEN,
      timeoutMs: config.DOCUMENTS_TIMEOUT_MS,
      connections: 4,
    });
    const subscriptionsClient = createServiceClient({
      baseUrl: config.SUBSCRIPTIONS_URL,
      name: 'subscriptions',
      internalToken: config.INTERNAL_TOKEN,
      timeoutMs: config.SUBSCRIPTIONS_TIMEOUT_MS,
      connections: 4,
    });
    const testClockNeighbours = createTestClockNeighbours(catalogClient, subscriptionsClient);
    const live = config.SMTP_URL ? smtpTransport(config.SMTP_URL, config.MAIL_TIMEOUT_MS) : emlFileTransport(config.MAIL_DIR);
    const transports = { live, test: config.TEST_MODE_MAIL === 'smtp' ? live : emlFileTransport(join(config.MAIL_DIR, 'test')) };
    // A commit that queued messages also wakes the mail worker, as it wakes the outbox relay.
    const announceAll = () => {
      announce();
      mailWorker.nudge();
    };
    const catalog = catalogReader(catalogClient);
    const app = buildApp({
      orm,
      internalToken: config.INTERNAL_TOKEN,
      catalog,
      clock,
      publicUrlBase: config.PUBLIC_URL_BASE,
      announce: announceAll,
      checkReadiness,
      testClockNeighbours,
      nudgeAdvancer: () => advancer.nudge(),
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
    const mailWorker = new MailWorker({
      orm,
      transports,
      documents: documentsClient,
      clock,
      publicUrlBase: config.PUBLIC_URL_BASE,
      from: parseMailFrom(config.MAIL_FROM),
      schedule: config.MAIL_RETRY_SCHEDULE,
      // Documents, then SMTP, each within its deadline, and time to record the outcome.
      leaseMs: config.DOCUMENTS_TIMEOUT_MS + config.MAIL_TIMEOUT_MS + 5_000,
      concurrency: config.MAIL_CONCURRENCY,
      pollMs: config.MAIL_POLL_MS,
      announce,
      onError: (error) => app.log.error({ err: error }, 'mail worker: the message stays queued and is tried again'),
      log: app.log,
    });
    const reminders = new ReminderSweep({
      orm,
      clock,
      catalog,
      publicUrlBase: config.PUBLIC_URL_BASE,
      intervalMs: config.REMINDER_SWEEP_INTERVAL_MS,
      announce: announceAll,
      onError: (error) => app.log.error({ err: error }, 'reminder sweep failed; it runs again at the next interval'),
    });
    const advancer = new TestClockAdvancer({
      orm,
      rules: {
        runSubscriptions: testClockNeighbours.runSubscriptions,
        sweepOverdue: (clockId) => sweep.sweepClock(clockId),
        sendReminders: (clockId) => reminders.sweepClock(clockId),
        nudgeMail: () => mailWorker.nudge(),
      },
      leaseMs: config.TEST_CLOCK_LEASE_MS,
      pollMs: config.TEST_CLOCK_POLL_MS,
      onError: (error) => app.log.error({ err: error }, 'test clock advance failed; it goes on from the clock’s time at the next pass'),
    });
    app.log.info({ mail: live.describe, test_mode_mail: transports.test.describe }, config.SMTP_URL ? 'e-mail goes over SMTP' : 'SMTP_URL is unset: e-mails are written as .eml files');
    return {
      app,
      sweep,
      mailWorker,
      reminders,
      advancer,
      workers: [sweep, reminders, mailWorker, advancer],
      closeAfterWorkers: [catalogClient, documentsClient, subscriptionsClient, { close: async () => new Set(Object.values(transports)).forEach((transport) => transport.close()) }],
    };
  },
});

export type BillingService = Awaited<ReturnType<typeof billingService.create>>;
