import { eventBusSettings, keyedWriteSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

export const Settings = z.object({
  PORT: port(3102),
  ...serviceSettings,
  ...eventBusSettings,
  ...keyedWriteSettings,
  CATALOG_URL: z.url().default('http://127.0.0.1:3101').describe('Origin of the catalog service (customers and prices).'),
  CATALOG_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Deadline of one call to the catalog.'),
  PUBLIC_URL_BASE: z
    .url()
    .default('http://localhost:8080')
    .transform((url) => url.replace(/\/+$/, ''))
    .describe('Origin of the public invoice pages: public_url = PUBLIC_URL_BASE/i/<token>.'),
  OVERDUE_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000).describe('How often open invoices past due are looked for.'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(500).describe('How often the outbox relay looks for rows nobody announced.'),
  OUTBOX_NUDGE_DELAY_MS: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000)
    .default(20)
    .describe('How long the relay waits after a commit for others to join its batch: event latency against database round trips.'),
  FINALIZE_BATCH_MAX: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(64)
    .describe('The most finalizes of one number series written in one transaction (group commit); 1 writes each finalize in its own.'),
});
export type BillingConfig = z.infer<typeof Settings>;

/** Billing's settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): BillingConfig => parseConfig(Settings, env);
