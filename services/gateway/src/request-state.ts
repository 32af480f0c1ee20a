import type { ActiveKey } from './modules/api-keys/api-key.cache.ts';
import type { Claim } from './modules/idempotency/idempotency.service.ts';

/** What the gateway learns about a request on its way through the hooks. */
declare module 'fastify' {
  interface FastifyRequest {
    /** The API key that authenticated it; null on public operations. */
    principal: ActiveKey | null;
    /** Set when the request runs under an Idempotency-Key; `claim` is held until its outcome is recorded. */
    idempotency: { key: string; claim: Claim } | null;
  }
}
