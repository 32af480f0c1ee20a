import type { FastifyReply, FastifyRequest } from 'fastify';
import { fingerprintOf, idempotencyKeyOf, IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, type RecordedResponse } from './idempotency.domain.ts';
import type { IdempotencyService } from './idempotency.service.ts';

const replay = (reply: FastifyReply, response: RecordedResponse): FastifyReply =>
  reply.code(response.status).headers(response.headers).header(REPLAYED_HEADER, 'true').send(response.body);

/**
 * Before a write is forwarded: demands, validates and claims its Idempotency-Key, or answers it
 * from the recorded outcome of the same request. Runs after authentication: keys are per workspace.
 */
export const beginIdempotentRequest = async (request: FastifyRequest, reply: FastifyReply, idempotency: IdempotencyService): Promise<FastifyReply | undefined> => {
  const { operation, principal } = request;
  if (operation === null || principal === null) return undefined;
  const key = idempotencyKeyOf(request.headers[IDEMPOTENCY_KEY_HEADER], operation.idempotency);
  if (key === undefined) return undefined;
  const outcome = await idempotency.begin(principal.workspaceId, key, fingerprintOf(request.method, request.url, request.body));
  if (outcome.kind === 'replay') return replay(reply, outcome.response);
  request.idempotency = { key, claim: outcome.claim };
  return undefined;
};
