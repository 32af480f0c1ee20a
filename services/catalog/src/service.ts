import { BILLING_SUBJECTS, EmailSuppressedData } from '@invoicing/contracts';
import { createServiceClient, defineService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from './database.ts';
import { customerRepository } from './modules/customers/customer.repository.ts';
import { testClockReader } from './shared/test-clocks.ts';

/** Durable consumer of the addresses billing's mail server refused for good. */
export const EMAIL_SUPPRESSED_CONSUMER = 'catalog-email-suppressed';

/** The catalog as its hosts run it: alone (`main.ts`), beside the other services (`npm start`) or in its tests. */
export const catalogService = defineService({
  name: 'catalog',
  loadConfig,
  database: { schema: CATALOG_SCHEMA, open: openCatalogDatabase },
  // Consumes `billing.email.suppressed`: customers with a refused address show `email_status: "bounced"`.
  usesEvents: true,
  build: ({ config, orm, logger, clock, checkReadiness, bus }) => {
    const billingClient = createServiceClient({ baseUrl: config.BILLING_URL, name: 'billing', internalToken: config.INTERNAL_TOKEN, timeoutMs: config.BILLING_TIMEOUT_MS });
    const app = buildApp({ orm, internalToken: config.INTERNAL_TOKEN, testClocks: testClockReader(billingClient), logger, clock, checkReadiness, idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS });
    const suppressedConsumer = {
      start: () =>
        bus.subscribe({
          durable: EMAIL_SUPPRESSED_CONSUMER,
          subject: BILLING_SUBJECTS.emailSuppressed,
          handle: async (envelope) => {
            const data = EmailSuppressedData.safeParse(envelope.data);
            if (!data.success) return void app.log.error({ event_id: envelope.id }, 'billing.email.suppressed breaks its contract; skipped');
            const marked = await customerRepository(orm.em.fork()).markEmailBounced(envelope.workspace_id, data.data.address);
            app.log.info({ event_id: envelope.id, workspace_id: envelope.workspace_id, customers: marked }, 'customers marked bounced');
          },
        }),
    };
    return { app, workers: [suppressedConsumer], closeAfterWorkers: [billingClient] };
  },
});
