import rateLimit, { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '@invoicing/service-kit';
import type { FastifyInstance, FastifyRequest, onRequestHookHandler } from 'fastify';

export interface RateLimits {
  /** Requests per API key per window. */
  perKey: number;
  /** Requests without a key (the public pages) per client address per window. */
  perAddress: number;
  windowMs: number;
  /** Redis or Valkey shared by every replica; unset: each process counts in its own memory. */
  redisUrl?: string | undefined;
  /** Prefix of the counters' keys in that Redis, one per deployment sharing it. */
  redisKeyPrefix: string;
}

/**
 * The client's address as the trusted proxies report it. An IPv6 client usually holds a whole /64,
 * so that is counted as one address, as the plugin itself would. (No address once the client hung up.)
 */
const clientAddressOf = (request: FastifyRequest) => normalizeIP(request.ip ?? '');

/**
 * The rate-limit hook for the routes that declare it (after authentication, which names the budget):
 * a request with an API key counts against that key's budget, one without (a public invoice page)
 * against its client address's, so page readers cannot spend a key's budget nor a key theirs. One
 * hook, one store: every route counts against the same budgets.
 *
 * With `redisUrl` the counters are shared, so the limits hold for a key or address in total,
 * whichever replica a request reaches. Should Redis fail, requests pass uncounted rather than
 * fail: losing the limit for a while is better than losing the API.
 */
export const registerRateLimits = async (app: FastifyInstance, limits: RateLimits): Promise<onRequestHookHandler> => {
  const windowSeconds = limits.windowMs / 1000;
  // ioredis is loaded only by a gateway that counts in Redis: one process alone never needs it.
  const redis = limits.redisUrl === undefined ? undefined : await (await import('./rate-limit-redis.ts')).connectRateLimitRedis(limits.redisUrl, app.log);
  if (redis) app.addHook('onClose', async () => redis.close());
  await app.register(rateLimit, {
    // Routes declare the hook themselves (route-hooks.ts), whatever the order of registration.
    global: false,
    timeWindow: limits.windowMs,
    ...(redis && { redis: redis.client, nameSpace: limits.redisKeyPrefix, skipOnError: true }),
    // Key ids are UUIDs and addresses never are: a key and an address cannot share a counter.
    keyGenerator: (request) => request.principal?.keyId ?? clientAddressOf(request),
    max: (request) => (request.principal === null ? limits.perAddress : limits.perKey),
    // Limit headers on the 429 only: on every success they would be bytes and work on the hot path.
    addHeadersOnExceeding: { 'x-ratelimit-limit': false, 'x-ratelimit-remaining': false, 'x-ratelimit-reset': false },
    errorResponseBuilder: (request, context) => {
      const counted = request.principal === null ? 'this client address' : 'this API key';
      return new AppError('rate_limited', `Rate limit of ${context.max} requests per ${windowSeconds} s for ${counted} exceeded; retry in ${context.after}.`);
    },
  });
  return app.rateLimit() as onRequestHookHandler;
};

/**
 * The budget of e-mail sends per workspace (every key of it together), beside the key's own: a
 * send puts mail into other people's inboxes, so a leaked or looping key of a workspace cannot
 * turn the platform into a spam cannon, however many keys the workspace holds. Counted in the
 * same store as the other limits (Redis when set, so across replicas).
 */
export const sendRateLimit = (app: FastifyInstance, { perWorkspace, windowMs }: { perWorkspace: number; windowMs: number }): onRequestHookHandler => {
  // `createRateLimit` counts without the once-per-request guard of `rateLimit`, so this budget is
  // counted beside the key's, in the same store.
  const count = app.createRateLimit({
    max: perWorkspace,
    timeWindow: windowMs,
    // `send:` keeps these counters apart from the per-key and per-address ones.
    keyGenerator: (request) => `send:${request.principal?.workspaceId ?? clientAddressOf(request)}`,
  });
  return async (request) => {
    const counted = await count(request);
    if (counted.isAllowed || !counted.isExceeded) return;
    throw new AppError('rate_limited', `Rate limit of ${counted.max} e-mail sends per ${windowMs / 1000} s for this workspace exceeded; retry in ${counted.ttlInSeconds} s.`);
  };
};
