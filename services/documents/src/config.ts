import { eventBusSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

export const Settings = z.object({
  PORT: port(3103),
  ...serviceSettings,
  ...eventBusSettings,
  BILLING_URL: z.url().default('http://127.0.0.1:3102').describe('Origin of the billing service (invoices, public-link lookups).'),
  BILLING_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(5_000).describe('Deadline of one call to billing.'),
  CHROMIUM_PATH: z
    .string()
    .min(1)
    .optional()
    .describe('Chromium or Chrome binary that prints PDFs; unset: one installed on the machine, else the one bundled in @sparticuz/chromium.'),
  PDF_PAGE_POOL_SIZE: z.coerce.number().int().min(1).max(16).default(2).describe('Browser pages kept open and reused; renders beyond it queue.'),
  PDF_RENDER_TIMEOUT_MS: z.coerce.number().int().min(1_000).max(120_000).default(20_000).describe('Longest one PDF render may take.'),
  PDF_CACHE_MB: z.coerce.number().int().min(0).max(4096).default(64).describe('Memory for stored PDFs served without a database read; 0 turns it off.'),
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).default(500).describe('How often the outbox relay looks for rows nobody announced.'),
});
export type DocumentsConfig = z.infer<typeof Settings>;

/** Documents' settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): DocumentsConfig => parseConfig(Settings, env);
