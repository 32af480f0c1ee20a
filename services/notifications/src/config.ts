import { join } from 'node:path';
import { eventBusSettings, keyedWriteSettings, parseConfig, port, repositoryRoot, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';

const commaList = (value: string): string[] =>
  value
    .split(',')
    .map((item) => item.trim())
    .filter((item) => item.length > 0);

/** `a.example, 127.0.0.1, [::1]` → a set of lowercase host names and bare addresses. */
const AllowedHosts = z
  .string()
  .default('')
  .transform((value) => new Set(commaList(value).map((host) => host.toLowerCase().replace(/^\[(.*)\]$/, '$1'))))
  .describe('Hosts that webhook URLs may name although they resolve to loopback or private addresses, and over plain http (default: none).');

const RetrySchedule = z
  .string()
  .default('0,5,300,1800,7200,18000,36000,36000')
  .transform((value, ctx) => {
    const delays = commaList(value).map(Number);
    if (delays.length === 0 || delays.some((delay) => !Number.isInteger(delay) || delay < 0 || delay > 7 * 86_400)) {
      ctx.addIssue({ code: 'custom', message: 'must be comma-separated whole seconds between 0 and 604800, at least one' });
      return z.NEVER;
    }
    return delays;
  })
  .describe('Seconds before each attempt: the first is counted from the event, each later one from the attempt before it.');

const SecretsKey = z
  .string()
  .optional()
  .refine((value) => value === undefined || Buffer.from(value, 'base64').length === 32, 'must be base64 of exactly 32 bytes (openssl rand -base64 32)')
  .describe('AES-256-GCM key that encrypts webhook secrets at rest; unset: a key kept in WEBHOOK_SECRETS_KEY_FILE.');

export const Settings = z.object({
  PORT: port(3104),
  ...serviceSettings,
  ...eventBusSettings,
  ...keyedWriteSettings,
  WEBHOOK_ALLOWED_HOSTS: AllowedHosts,
  WEBHOOK_RETRY_SCHEDULE: RetrySchedule,
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).describe('Deadline of one delivery request, connect to last body byte.'),
  WEBHOOK_CONCURRENCY: z.coerce.number().int().min(1).max(1_000).default(32).describe('Deliveries in flight at once per process.'),
  WEBHOOK_ENDPOINT_CONCURRENCY: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000)
    .default(8)
    .describe('Deliveries in flight at once to one endpoint: an endpoint that hangs holds no more slots than this.'),
  WEBHOOK_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1_000).describe('How often due retries are looked for when nothing wakes the worker.'),
  WEBHOOK_DISABLE_AFTER_FAILING_S: z.coerce.number().int().min(1).default(3 * 86_400).describe('An endpoint whose every attempt failed for this long is disabled.'),
  WEBHOOK_SECRETS_KEY: SecretsKey,
  WEBHOOK_SECRETS_KEY_FILE: z
    .string()
    .default(join(repositoryRoot(), '.data', 'webhook-secrets.key'))
    .describe('Where the generated key is kept when WEBHOOK_SECRETS_KEY is unset; created (mode 0600) on first start.'),
  EVENT_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(90).describe('Events older than this are deleted, with their deliveries.'),
});
export type NotificationsConfig = z.infer<typeof Settings>;

/** The notifications service's settings, read from the environment once at start. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): NotificationsConfig => parseConfig(Settings, env);
