import { getOpenApiDocument, OPERATIONS } from '@invoicing/contracts';
import { buildOpenApiDocument } from '@invoicing/contracts/openapi';
import { acceptJsonBodiesOnly, AppError, baseServerOptions, PeriodicTask, pingDatabase, presentsForeignToken, registerMetrics, registerProblemHandlers, registerTracing, type Orm } from '@invoicing/service-kit';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyServerOptions } from 'fastify';
import type { GatewayConfig } from './config.ts';
import { deferredChildLogger } from './deferred-logger.ts';
import './request-state.ts';
import { ApiKeyCache } from './modules/api-keys/api-key.cache.ts';
import { listenForApiKeyChanges } from './modules/api-keys/api-key.listener.ts';
import { findActiveKey } from './modules/api-keys/api-key.repository.ts';
import { authenticationHook } from './modules/api-keys/authentication.hook.ts';
import { KeyLookupBudget } from './modules/api-keys/key-lookup-budget.ts';
import { releaseUnsettledClaim } from './modules/idempotency/idempotency.hooks.ts';
import { createIdempotencyService, type IdempotencyService } from './modules/idempotency/idempotency.service.ts';
import { registerRateLimits, sendRateLimit } from './modules/rate-limits/rate-limits.ts';
import { registerApiReference } from './modules/reference/api-reference.routes.ts';
import { allowedMethodsOf } from './modules/routing/allowed-methods.ts';
import { createForwarder } from './modules/routing/forwarder.ts';
import { registerOperationRoutes } from './modules/routing/operation.routes.ts';
import { checkUpstreamReady, createUpstreams } from './modules/routing/upstreams.ts';
import { readUnreadBody } from './modules/routing/unread-body.hook.ts';
import { writeGuardHook } from './modules/routing/write-guard.hook.ts';
import { fastifyTrustProxy } from './trust-proxy.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  orm: Orm;
  logger?: FastifyServerOptions['logger'];
  /** Throws when the database does not answer; default: a query on `orm`. `/readyz` also asks the awaited upstreams. */
  checkReadiness?: () => Promise<void>;
  /** The Idempotency-Key records; default: `gatewayIdempotency(config, orm, app.log)`. The app closes them. */
  idempotency?: IdempotencyService;
}

const KEY_CACHE_MAX_ENTRIES = 10_000;
const PURGE_INTERVAL_MS = 15 * 60_000;

/**
 * The gateway's Idempotency-Key records, on its settings. A request in flight holds its key for a
 * short lease that this gateway renews while the request runs: the keys of a gateway that died are
 * free again within IDEMPOTENCY_LEASE_MS.
 */
export const gatewayIdempotency = (config: GatewayConfig, orm: Orm, log: Pick<FastifyBaseLogger, 'warn'>): IdempotencyService =>
  createIdempotencyService(orm, {
    leaseMs: config.IDEMPOTENCY_LEASE_MS,
    // No upstream exchange lasts longer, whatever becomes of its request.
    maxHoldMs: 2 * config.UPSTREAM_TIMEOUT_MS,
    ttlHours: config.IDEMPOTENCY_TTL_HOURS,
    onRenewalError: (error) => log.warn({ err: error }, 'could not renew the leases of idempotency keys in flight'),
  });

/**
 * Deletes expired Idempotency-Key records once started (a worker of the service: after its
 * migrations have run), then every 15 minutes until stopped; a failure waits for the next time.
 */
export const idempotencyPurge = (idempotency: IdempotencyService, log: FastifyBaseLogger): PeriodicTask =>
  new PeriodicTask({
    intervalMs: PURGE_INTERVAL_MS,
    run: async () => {
      const purged = await idempotency.purgeExpired();
      if (purged > 0) log.info({ purged }, 'purged expired idempotency records');
    },
    onError: (error) => log.warn({ err: error }, 'could not purge idempotency records'),
  });

/**
 * The API gateway: authenticates API keys, checks scopes, rate-limits per key (per client address
 * without one), enforces Idempotency-Keys, serves the OpenAPI document and proxies every other
 * operation to its service.
 */
export const buildApp = async ({ config, orm, logger, checkReadiness = () => pingDatabase(orm), idempotency: givenIdempotency }: GatewayDeps) => {
  const app = Fastify({
    ...baseServerOptions(logger),
    trustProxy: fastifyTrustProxy(config.TRUST_PROXY),
    // One line per request (below) instead of Fastify's two: logging must not dominate the hot path.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
    ...(logger ? { childLoggerFactory: deferredChildLogger } : {}),
  });
  registerTracing(app, 'gateway');
  registerProblemHandlers(app, { methodsOf: allowedMethodsOf(OPERATIONS) });
  acceptJsonBodiesOnly(app);

  const keys = new ApiKeyCache({ load: (keyId) => findActiveKey(orm, keyId), ttlMs: config.API_KEY_CACHE_TTL_MS, maxEntries: KEY_CACHE_MAX_ENTRIES });
  const listener = await listenForApiKeyChanges({
    url: config.DATABASE_URL,
    log: app.log,
    onChange: (keyId) => keys.evict(keyId),
    onReset: () => keys.clear(),
  });
  const idempotency = givenIdempotency ?? gatewayIdempotency(config, orm, app.log);
  app.addHook('onClose', async () => idempotency.close());
  const upstreams = createUpstreams(config, OPERATIONS);

  app.decorateRequest('principal', null);
  app.decorateRequest('idempotency', null);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  app.addHook('preHandler', readUnreadBody);
  const limitRate = await registerRateLimits(app, {
    perKey: config.RATE_LIMIT_MAX,
    perAddress: config.PUBLIC_RATE_LIMIT_MAX,
    windowMs: config.RATE_LIMIT_WINDOW_MS,
    redisUrl: config.REDIS_URL,
    redisKeyPrefix: config.REDIS_KEY_PREFIX,
  });
  const keyLookups = new KeyLookupBudget({ max: config.PUBLIC_RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  const limitSends = sendRateLimit(app, { perWorkspace: config.SEND_RATE_LIMIT_MAX, windowMs: config.RATE_LIMIT_WINDOW_MS });
  const guards = { authenticate: authenticationHook(keys, keyLookups), limitRate, limitSends, guardWrite: writeGuardHook(idempotency), releaseUnsettledKey: releaseUnsettledClaim(idempotency) };
  if (['info', 'debug', 'trace'].includes(app.log.level)) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
      done();
    });
  }

  registerMetrics(app, 'gateway');
  app.get('/healthz', async () => ({ status: 'ok' }));
  app.get('/readyz', async (request) => {
    if (presentsForeignToken(request.headers, config.INTERNAL_TOKEN)) {
      throw new AppError('unauthenticated', 'This gateway belongs to another platform: its INTERNAL_TOKEN differs.');
    }
    try {
      await checkReadiness();
    } catch (error) {
      // pingDatabase names the database (host:port, never the password) and why it does not answer.
      throw new AppError('unavailable', `Not ready: ${(error as Error).message}`);
    }
    try {
      await Promise.all([...upstreams.values()].filter(({ name }) => config.awaitedUpstreams.has(name)).map((upstream) => checkUpstreamReady(upstream, config.INTERNAL_TOKEN)));
    } catch (error) {
      throw new AppError('unavailable', `Not ready: ${(error as Error).message}.`);
    }
    return { status: 'ready' };
  });

  const openApiDocument = JSON.stringify(buildOpenApiDocument({ serverUrl: config.ownOrigin }));
  await registerOperationRoutes(app, {
    operations: OPERATIONS,
    upstreams,
    guards,
    forwarder: createForwarder({ internalToken: config.INTERNAL_TOKEN, idempotency }),
    ownHandlers: { [getOpenApiDocument.operationId]: (_request, reply) => reply.type('application/json').send(openApiDocument) },
  });
  // The reference is public, like the document it reads: limited per client address.
  await app.register(async (reference) => {
    reference.addHook('onRequest', limitRate);
    await registerApiReference(reference, getOpenApiDocument.path);
  });

  app.addHook('onClose', async () => {
    await listener.close();
    await Promise.all([...upstreams.values()].map((upstream) => upstream.pool.close()));
  });
  return app;
};
