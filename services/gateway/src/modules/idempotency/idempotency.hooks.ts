import type { Idempotency } from '@invoicing/contracts';
import type { FastifyReply, FastifyRequest, onSendHookHandler } from 'fastify';
import { fingerprintOf, idempotencyKeyOf, IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, type RecordedResponse } from './idempotency.domain.ts';
import type { IdempotencyService } from './idempotency.service.ts';

const replay = (reply: FastifyReply, response: RecordedResponse): FastifyReply =>
  reply.code(response.status).headers(response.headers).header(REPLAYED_HEADER, 'true').send(response.body);

/**
 * Before a write is forwarded: demands, validates and claims its Idempotency-Key under the
 * operation's rule, or answers it from the recorded outcome of the same request. Runs after
 * authentication: keys are per data space (workspace and mode), so a key used by a live key and then
 * by a test key is two requests, never a replay of the other mode's answer. Resolves to true when it answered the request itself.
 */
export const beginIdempotentRequest = async (request: FastifyRequest, reply: FastifyReply, rule: Idempotency, idempotency: IdempotencyService): Promise<boolean> => {
  const { principal } = request;
  if (principal === null) return false;
  const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_KEY_HEADER], rule);
  if (key === undefined) return false;
  const outcome = await idempotency.begin(principal.spaceId, key, fingerprintOf(request.method, request.url, request.body));
  if (outcome.kind === 'replay') {
    replay(reply, outcome.response);
    return true;
  }
  request.idempotency = { key, claim: outcome.claim };
  return false;
};

/**
 * When a write is answered: a claim its answer left held (the request failed before it was
 * forwarded, say) is released, so a retry need not wait for the lease to end. A forwarded write
 * records or releases its claim before it answers.
 */
export const releaseUnsettledClaim =
  (idempotency: IdempotencyService): onSendHookHandler =>
  (request, _reply, payload, done) => {
    const claim = request.idempotency?.claim;
    if (claim === undefined || !idempotency.isHeld(claim)) return done(null, payload);
    idempotency
      .release(claim)
      .catch((error: unknown) => request.log.error({ err: error }, 'could not release an idempotency key'))
      .then(() => done(null, payload));
  };
