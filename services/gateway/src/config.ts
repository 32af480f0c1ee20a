import { localDatabaseSettings, parseConfig, port, serviceSettings } from '@invoicing/service-kit';
import { z } from 'zod';
import { redisKeyPrefixSetting, redisUrlSetting } from './modules/rate-limits/redis-settings.ts';
import { trustProxySetting } from './trust-proxy.ts';

const milliseconds = (defaultMs: number, min = 1) => z.coerce.number().int().min(min).default(defaultMs);

export const GatewaySettings = z
  .object({
    ...serviceSettings,
    PORT: port(8080),
    CATALOG_URL: z.url().default('http://127.0.0.1:3101').describe('Upstream of customers, products and prices.'),
    BILLING_URL: z.url().default('http://127.0.0.1:3102'),
    DOCUMENTS_URL: z.url().default('http://127.0.0.1:3103'),
    NOTIFICATIONS_URL: z.url().default('http://127.0.0.1:3104'),
    SUBSCRIPTIONS_URL: z.url().default('http://127.0.0.1:3105'),
    PUBLIC_URL_BASE: z.url().optional().describe("Origin of the public invoice pages; default the gateway's own origin."),
    RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(6000).describe('Requests per API key per window.'),
    PUBLIC_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(600).describe('Requests without an API key (public invoice pages, their PDFs) per client address per window; also how many unknown or revoked keys an address may present per window before its new keys are no longer looked up.'),
    RATE_LIMIT_WINDOW_MS: milliseconds(60_000),
    SEND_RATE_LIMIT_MAX: z.coerce.number().int().min(1).default(100).describe('E-mail sends (POST /invoices/:id/send) per workspace per window, all its keys together.'),
    REDIS_URL: redisUrlSetting,
    REDIS_KEY_PREFIX: redisKeyPrefixSetting,
    IDEMPOTENCY_TTL_HOURS: z.coerce.number().int().min(24, 'must be at least 24 (records are kept at least a day)').default(24),
    IDEMPOTENCY_LEASE_MS: milliseconds(5_000, 1_000).describe(
      'How long a request in flight holds its Idempotency-Key unless its gateway renews the hold (every third of it while the request runs): the keys of a gateway that died are free again within this time.',
    ),
    UPSTREAM_TIMEOUT_MS: milliseconds(30_000, 100).describe('Longest wait for an upstream response before a 503.'),
    API_KEY_CACHE_TTL_MS: milliseconds(30_000, 0).describe('Backstop for key changes whose notice was missed.'),
    TRUST_PROXY: trustProxySetting,
  });

/** The services behind the gateway, and the setting that locates each. */
export const UPSTREAM_URL_SETTINGS = {
  catalog: 'CATALOG_URL',
  billing: 'BILLING_URL',
  documents: 'DOCUMENTS_URL',
  notifications: 'NOTIFICATIONS_URL',
  subscriptions: 'SUBSCRIPTIONS_URL',
} as const;
export type UpstreamName = keyof typeof UPSTREAM_URL_SETTINGS;

export type GatewayConfig = z.infer<typeof GatewaySettings> & {
  /** Where clients reach this gateway: the OpenAPI document's server. */
  ownOrigin: string;
  PUBLIC_URL_BASE: string;
  upstreamUrls: Record<UpstreamName, string>;
  /**
   * Upstreams whose URL was set explicitly: /readyz waits for them. One left at its default may
   * not be deployed yet; its routes are proxied all the same and answer 503 while it is down.
   */
  awaitedUpstreams: ReadonlySet<UpstreamName>;
};

/** The gateway's settings; throws ConfigError naming every bad variable. */
export const loadConfig = (env: NodeJS.ProcessEnv = process.env): GatewayConfig => {
  const settings = parseConfig(GatewaySettings, env);
  const host = ['0.0.0.0', '::', '127.0.0.1', '::1'].includes(settings.HOST) ? 'localhost' : settings.HOST.includes(':') ? `[${settings.HOST}]` : settings.HOST;
  const ownOrigin = `http://${host}:${settings.PORT}`;
  const names = Object.keys(UPSTREAM_URL_SETTINGS) as UpstreamName[];
  return {
    ...settings,
    ownOrigin,
    PUBLIC_URL_BASE: settings.PUBLIC_URL_BASE ?? ownOrigin,
    upstreamUrls: Object.fromEntries(names.map((name) => [name, settings[UPSTREAM_URL_SETTINGS[name]]])) as Record<UpstreamName, string>,
    awaitedUpstreams: new Set(names.filter((name) => env[UPSTREAM_URL_SETTINGS[name]] !== undefined)),
  };
};

const AdminSettings = z.object(localDatabaseSettings);
export type AdminConfig = z.infer<typeof AdminSettings>;

/** The operator command's settings: the database `npm start` uses. */
export const loadAdminConfig = (env: NodeJS.ProcessEnv = process.env): AdminConfig => parseConfig(AdminSettings, env);
