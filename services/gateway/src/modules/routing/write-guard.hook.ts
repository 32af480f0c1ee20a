import type { Idempotency } from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit';
import type { preHandlerHookHandler } from 'fastify';
import { beginIdempotentRequest } from '../idempotency/idempotency.hooks.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';

const isJsonObject = (body: unknown): boolean => body !== null && typeof body === 'object' && !Array.isArray(body);

/**
 * Before a write is forwarded, once its JSON body is parsed: the body must be an object (the
 * specification's request bodies all are), then the operation's Idempotency-Key rule applies; a
 * repeat of a recorded request is answered here from its record.
 */
export const writeGuardHook =
  (idempotency: IdempotencyService) =>
  (rule: Idempotency, body: 'json' | 'text' = 'json'): preHandlerHookHandler =>
    function guardWrite(request, reply, done) {
      // An operation that takes text (a bank statement's XML) gets it as its parser read it: a string.
      if (body === 'text' ? typeof request.body !== 'string' : request.body !== undefined && !isJsonObject(request.body)) {
        return done(invalidRequest(body === 'text' ? 'The body is missing.' : 'The body must be a JSON object.'));
      }
      // A replay has been answered: the request must go no further, so `done` is not called.
      beginIdempotentRequest(request, reply, rule, idempotency).then((answered) => {
        if (!answered) done();
      }, done);
      return undefined;
    };
