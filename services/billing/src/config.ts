import { eventBusSettings, keyedWriteSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

const RetrySchedule = z
  .string()
  .default('0,60,600,3600,21600')
  .transform((value, ctx) => {
    const delays = value.split(',').map((part) => part.trim()).filter((part) => part !== '').map(Number);
    if (delays.length === 0 || delays.some((delay) => !Number.isInteger(delay) || delay < 0 || delay > 7 * 86_400)) {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole seconds between 0 and 604800, at least one' });
      return z.NEVER;
    }
    return delays;
  })
  .describe('Seconds before each attempt after a temporary refusal (4xx, connection lost): at most 1 + the number of delays attempts.');

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
  // --- E-mail delivery (decisions.md, "E-mail delivery") ---
  SMTP_URL: z
    .string()
    .optional()
    .transform((value) => (value === undefined || value.trim() === '' ? undefined : value.trim()))
    .refine((value) => value === undefined || /^smtps?:\/\/[^\s]+$/.test(value), 'must be an smtp:// or smtps:// URL (credentials in it: smtp://user:password@host:587)')
    .describe('Where e-mail goes (smtp:// with STARTTLS when offered, or smtps://); unset: each message is written as an .eml file under MAIL_DIR.'),
  MAIL_FROM: z
    .string()
    .default('invoices@localhost')
    .refine((value) => !/[\r\n]/.test(value) && /^[^@\s<>]+@[^@\s<>]+$|^[^<>\r\n]*<[^@\s<>]+@[^@\s<>]+>$/.test(value), 'must be an address, optionally with a name: Invoices <invoices@example.com>')
    .describe('The From of every e-mail; the workspace’s business name is shown as its name.'),
  MAIL_RETRY_SCHEDULE: RetrySchedule,
  MAIL_DIR: z.string().min(1).default('.data/mail').describe('Where messages are written as .eml files while SMTP_URL is unset (test mode’s: under its `test` folder).'),
  TEST_MODE_MAIL: z
    .enum(['file', 'smtp'])
    .default('file')
    .describe('Where test mode’s e-mails go: `file` writes each as an .eml file under MAIL_DIR/test and never sends it, so test data never mails a real customer; `smtp` sends them like live ones (over SMTP_URL when set).'),
  MAIL_TIMEOUT_MS: z.coerce.number().int().min(500).max(120_000).default(30_000).describe('Deadline of one SMTP delivery, connect to the final answer.'),
  MAIL_CONCURRENCY: z.coerce.number().int().min(1).max(100).default(4).describe('Messages sent at once per process.'),
  MAIL_POLL_MS: z.coerce.number().int().min(50).default(1_000).describe('How often due retries and reminders queued elsewhere are looked for.'),
  REMINDER_SWEEP_INTERVAL_MS: z.coerce.number().int().min(100).default(60_000).describe('How often invoices with a reminder due are looked for.'),
  SUBSCRIPTIONS_URL: z.url().default('http://127.0.0.1:3105').describe('Origin of the subscriptions service (a test clock’s due periods, and its subscriptions when it is deleted).'),
  SUBSCRIPTIONS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000).describe('Deadline of one call to subscriptions (one test clock step may invoice many periods).'),
  TEST_CLOCK_POLL_MS: z.coerce.number().int().min(10).default(1_000).describe('How often advancing test clocks are looked for when no advance announced one.'),
  TEST_CLOCK_LEASE_MS: z.coerce.number().int().min(1_000).default(120_000).describe('How long a replica holds a test clock it advances (renewed at each step); one that died frees it after this.'),
  DOCUMENTS_URL: z.url().default('http://127.0.0.1:3103').describe('Origin of the documents service (the stored PDFs and e-invoices a message attaches).'),
  DOCUMENTS_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(30_000).describe('Deadline of one document fetch (a first PDF may wait for Chromium).'),
  // --- end of e-mail delivery ---
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
