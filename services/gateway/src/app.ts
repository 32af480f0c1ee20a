import { OPERATIONS } from '@invoicing/contracts';
import { buildOpenApiDocument } from '@invoicing/contracts/openapi';
import { AppError, baseServerOptions, invalidRequest, pingDatabase, registerProblemHandlers, type Orm } from '@invoicing/service-kit';
import rateLimit from '@fastify/rate-limit';
import Fastify, { LogController, type FastifyServerOptions } from 'fastify';
import type { GatewayConfig } from './config.ts';
import './request-state.ts';
import { ApiKeyCache } from './modules/api-keys/api-key.cache.ts';
import { listenForApiKeyChanges } from './modules/api-keys/api-key.listener.ts';
import { findActiveKey } from './modules/api-keys/api-key.repository.ts';
import { authenticate, authorize } from './modules/api-keys/authenticate.ts';
import { beginIdempotentRequest } from './modules/idempotency/idempotency.hooks.ts';
import { createIdempotencyService } from './modules/idempotency/idempotency.service.ts';
import { indexOperations, operationOf } from './modules/routing/operation-table.ts';
import { registerProxyRoutes } from './modules/routing/proxy.routes.ts';
import { checkUpstreamReady, createUpstreams } from './modules/routing/upstreams.ts';

export interface GatewayDeps {
  config: GatewayConfig;
  orm: Orm;
  logger?: FastifyServerOptions['logger'];
}

const KEY_CACHE_MAX_ENTRIES = 10_000;
const PURGE_INTERVAL_MS = 15 * 60_000;
const OPEN_ROUTE = { config: { rateLimit: false } } as const;

const isJsonObject = (body: unknown): boolean => body !== null && typeof body === 'object' && !Array.isArray(body);

/**
 * The API gateway: authenticates API keys, checks scopes, rate-limits per key, enforces
 * Idempotency-Keys, serves the OpenAPI document and proxies every other operation to its service.
 */
export const buildApp = async ({ config, orm, logger }: GatewayDeps) => {
  const app = Fastify({
    ...baseServerOptions(logger),
    // One line per request (below) instead of Fastify's two: logging must not dominate the hot path.
    logController: new LogController({ requestIdLogLabel: 'request_id', disableRequestLogging: true }),
  });
  registerProblemHandlers(app);
  app.removeContentTypeParser('text/plain');

  const keys = new ApiKeyCache({ load: (keyId) => findActiveKey(orm, keyId), ttlMs: config.API_KEY_CACHE_TTL_MS, maxEntries: KEY_CACHE_MAX_ENTRIES });
  const listener = await listenForApiKeyChanges({
    url: config.DATABASE_URL,
    log: app.log,
    onChange: (keyId) => keys.evict(keyId),
    onReset: () => keys.clear(),
  });
  // An in-flight request holds its key twice as long as the longest upstream wait, then a retry may take over.
  const idempotency = createIdempotencyService(orm, { leaseMs: 2 * config.UPSTREAM_TIMEOUT_MS, ttlHours: config.IDEMPOTENCY_TTL_HOURS });
  const upstreams = createUpstreams(config, OPERATIONS);
  const table = indexOperations(OPERATIONS);

  app.decorateRequest('operation', null);
  app.decorateRequest('principal', null);
  app.decorateRequest('idempotency', null);

  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    request.operation = operationOf(table, request.method, request.routeOptions.url);
    done();
  });
  app.addHook('onRequest', async (request) => {
    const scope = request.operation?.scope;
    if (!scope) return;
    request.principal = await authenticate(request.headers.authorization, keys);
    authorize(request.principal, scope);
  });
  // Registered after authentication, so that it counts per API key (per address for public routes).
  await app.register(rateLimit, {
    max: config.RATE_LIMIT_MAX,
    timeWindow: config.RATE_LIMIT_WINDOW_MS,
    keyGenerator: (request) => request.principal?.keyId ?? request.ip,
    errorResponseBuilder: (_request, context) =>
      new AppError('rate_limited', `Rate limit of ${context.max} requests exceeded; retry in ${context.after}.`),
  });
  app.addHook('preHandler', async (request, reply) => {
    if (request.operation === null) return undefined;
    if (request.body !== undefined && !isJsonObject(request.body)) throw invalidRequest('The body must be a JSON object.');
    return beginIdempotentRequest(request, reply, idempotency);
  });
  if (['info', 'debug', 'trace'].includes(app.log.level)) {
    app.addHook('onResponse', (request, reply, done) => {
      request.log.info({ method: request.method, url: request.url, status: reply.statusCode, ms: Math.round(reply.elapsedTime) }, 'request completed');
      done();
    });
  }

  app.get('/healthz', OPEN_ROUTE, async () => ({ status: 'ok' }));
  app.get('/readyz', OPEN_ROUTE, async () => {
    try {
      await pingDatabase(orm);
    } catch {
      throw new AppError('unavailable', 'Not ready: the database does not answer.');
    }
    try {
      await Promise.all([...upstreams.values()].filter(({ name }) => config.awaitedUpstreams.has(name)).map(checkUpstreamReady));
    } catch (error) {
      throw new AppError('unavailable', `Not ready: ${(error as Error).message}.`);
    }
    return { status: 'ready' };
  });

  const openApiDocument = JSON.stringify(buildOpenApiDocument({ serverUrl: config.ownOrigin }));
  const gatewayOperations = OPERATIONS.filter((operation) => operation.service === 'gateway');
  for (const operation of gatewayOperations) {
    if (operation.operationId !== 'getOpenApiDocument') throw new Error(`The gateway has no handler for ${operation.operationId}`);
    app.get(operation.path, (_request, reply) => reply.type('application/json').send(openApiDocument));
  }
  await registerProxyRoutes(app, { operations: OPERATIONS, upstreams, idempotency, internalToken: config.INTERNAL_TOKEN });

  let purgeTimer: NodeJS.Timeout | undefined;
  const purgeIdempotencyRecords = async () => {
    try {
      const purged = await idempotency.purgeExpired();
      if (purged > 0) app.log.info({ purged }, 'purged expired idempotency records');
    } catch (error) {
      app.log.warn({ err: error }, 'could not purge idempotency records');
    }
  };
  app.addHook('onReady', async () => {
    await purgeIdempotencyRecords();
    purgeTimer = setInterval(purgeIdempotencyRecords, PURGE_INTERVAL_MS).unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(purgeTimer);
    await listener.close();
    await Promise.all([...upstreams.values()].map((upstream) => upstream.pool.close()));
  });
  return app;
};

export type GatewayApp = Awaited<ReturnType<typeof buildApp>>;
