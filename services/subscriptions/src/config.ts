import { eventBusSettings, keyedWriteSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

export const Settings = z.object({
  PORT: port(3105),
  ...serviceSettings,
  ...eventBusSettings,
  ...keyedWriteSettings,
  CATALOG_URL: z.url().default('http://127.0.0.1:3101').describe('Origin of the catalog service (customers and prices).'),
  BILLING_URL: z.url().default('http://127.0.0.1:3102').describe('Origin of the billing service (the account’s time zone, and the invoices).'),
  UPSTREAM_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000).describe('Deadline of one call to catalog or billing.'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(500).describe('How often the outbox relay looks for rows nobody announced.'),
  SUBSCRIPTION_SCHEDULER_INTERVAL_MS: z.coerce.number().int().min(50).default(30_000).describe('How often due periods are looked for when nothing announced any.'),
  SUBSCRIPTION_SCHEDULER_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(256)
    .default(32)
    .describe('Subscriptions one replica invoices at once (each its periods in order); billing batches their finalizes.'),
  SUBSCRIPTION_CLAIM_LEASE_MS: z.coerce
    .number()
    .int()
    .min(1_000)
    .default(60_000)
    .describe('How long a replica holds the subscriptions it claimed; one that died frees them after this.'),
});
export type SubscriptionsConfig = z.infer<typeof Settings>;

/** The service's settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): SubscriptionsConfig => parseConfig(Settings, env);
