import { invalidRequest } from '@invoicing/service-kit';
import type { FastifyReply, FastifyRequest, preHandlerHookHandler } from 'fastify';
import { beginIdempotentRequest } from '../idempotency/idempotency.hooks.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';

const isJsonObject = (body: unknown): boolean => body !== null && typeof body === 'object' && !Array.isArray(body);

/** Resolves to true when it answered the request itself (a replay). */
const guard = async (request: FastifyRequest, reply: FastifyReply, idempotency: IdempotencyService): Promise<boolean> => {
  if (request.body !== undefined && !isJsonObject(request.body)) throw invalidRequest('The body must be a JSON object.');
  return (await beginIdempotentRequest(request, reply, idempotency)) !== undefined;
};

/**
 * Before a write is forwarded, once its JSON body is parsed: the body must be an object (the
 * specification's request bodies all are), then the Idempotency-Key rules apply. Reads that share
 * the route pass straight through.
 */
export const writeGuardHook = (idempotency: IdempotencyService): preHandlerHookHandler =>
  function guardWrite(request, reply, done) {
    if (request.method === 'GET' || request.method === 'HEAD' || request.operation === null) return done();
    guard(request, reply, idempotency).then((answered) => {
      if (!answered) done();
    }, done);
    return undefined;
  };
