import { defineService, type EventConsumer, PeriodicTask } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { NOTIFICATIONS_SCHEMA, openNotificationsDatabase } from './database.ts';
import { deliveryRepository } from './modules/deliveries/delivery.repository.ts';
import { DeliveryWorker } from './modules/deliveries/delivery-worker.ts';
import { createWebhookSender } from './modules/deliveries/webhook-sender.ts';
import { expiredEventsPurge } from './modules/events/event-purge.ts';
import { recordEvent } from './modules/events/record-event.ts';
import { AddressPolicy } from './shared/address-policy.ts';
import { createSecretBox, loadSecretsKey } from './shared/secret-box.ts';

/** Durable consumers: one per stream, since the NATS 2.9 server takes one filter subject per consumer. */
export const CONSUMERS = [
  { durable: 'notifications-billing', subject: 'billing.>' },
  { durable: 'notifications-documents', subject: 'documents.>' },
  { durable: 'notifications-subscriptions', subject: 'subscriptions.>' },
] as const satisfies readonly Omit<EventConsumer, 'handle'>[];

const PURGE_INTERVAL_MS = 3600_000;

/**
 * Notifications as its hosts run it (alone, beside the other services on one bus, or in its
 * tests): the HTTP app, the event consumers, the delivery worker and the retention purge on one
 * database pool.
 */
export const notificationsService = defineService({
  name: 'notifications',
  loadConfig,
  database: { schema: NOTIFICATIONS_SCHEMA, open: openNotificationsDatabase },
  usesEvents: true,
  build: ({ config, orm, logger, clock, checkReadiness, bus }) => {
    const secrets = createSecretBox(loadSecretsKey(config.WEBHOOK_SECRETS_KEY, config.WEBHOOK_SECRETS_KEY_FILE));
    const policy = new AddressPolicy(config.WEBHOOK_ALLOWED_HOSTS);
    const sender = createWebhookSender({ policy, timeoutMs: config.WEBHOOK_TIMEOUT_MS });
    const announce = () => worker.nudge();
    const app = buildApp({
      orm,
      internalToken: config.INTERNAL_TOKEN,
      policy,
      secrets,
      clock,
      announce,
      checkReadiness,
      logger,
      idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS,
    });
    const worker = new DeliveryWorker({
      orm,
      sender,
      secrets,
      clock,
      schedule: config.WEBHOOK_RETRY_SCHEDULE,
      timeoutMs: config.WEBHOOK_TIMEOUT_MS,
      concurrency: config.WEBHOOK_CONCURRENCY,
      perEndpointConcurrency: config.WEBHOOK_ENDPOINT_CONCURRENCY,
      pollMs: config.WEBHOOK_POLL_MS,
      disableAfterFailingS: config.WEBHOOK_DISABLE_AFTER_FAILING_S,
      onError: (error) => app.log.error({ err: error }, 'delivery worker: the delivery stays queued and is tried again'),
      log: app.log,
    });
    app.metrics.gauge('webhook_deliveries_pending', 'Webhook deliveries not yet sent: queued, in flight or waiting for a retry.', () =>
      deliveryRepository(orm.em.fork()).countPending(),
    );
    const purgeExpiredEvents = expiredEventsPurge({ orm, clock, retentionDays: config.EVENT_RETENTION_DAYS });
    const purge = new PeriodicTask({
      intervalMs: PURGE_INTERVAL_MS,
      run: async () => void (await purgeExpiredEvents()),
      onError: (error) => app.log.error({ err: error }, 'event purge failed; it runs again at the next interval'),
    });

    let stopped = false;
    const record = recordEvent({
      em: orm.em,
      firstAttemptInS: config.WEBHOOK_RETRY_SCHEDULE[0] ?? 0,
      announce,
      onRejected: (subject, reason) => app.log.error({ subject, reason }, 'event dropped: it cannot become a webhook event'),
    });
    const handle = async (envelope: unknown) => {
      // The bus outlives the service in a shared host: refusing makes it hand the event to a running replica, or later to us.
      if (stopped) throw new Error('notifications is stopping');
      await record(envelope);
    };
    // Listed last, so closing refuses events first, before the purge and the worker stop.
    const consumers = {
      start: async () => {
        for (const consumer of CONSUMERS) await bus.subscribe({ ...consumer, handle });
      },
      stop: async () => {
        stopped = true;
      },
    };

    return {
      app,
      worker,
      /** Deletes the events past their retention now (it also runs hourly); returns how many went. */
      purgeExpiredEvents,
      workers: [worker, purge, consumers],
      closeAfterWorkers: [sender],
    };
  },
});

export type NotificationsService = Awaited<ReturnType<typeof notificationsService.create>>;
