import { eventBusSettings, keyedWriteSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

export const Settings = z.object({
  PORT: port(3101),
  ...serviceSettings,
  ...eventBusSettings,
  ...keyedWriteSettings,
  BILLING_URL: z.url().default('http://127.0.0.1:3102').describe('Origin of the billing service (test clocks, which customers in test mode may live on).'),
  BILLING_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Deadline of one call to billing.'),
});
export type CatalogConfig = z.infer<typeof Settings>;

/** The catalog's settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): CatalogConfig => parseConfig(Settings, env);
