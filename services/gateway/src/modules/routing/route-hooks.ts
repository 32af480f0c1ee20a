import type { Idempotency, Operation, Scope } from '@invoicing/contracts';
import type { onRequestHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';

/** The checks a public route may run, each made once for the whole app. */
export interface RouteGuards {
  /** Authenticates the API key and checks that it holds the scope (and is a test key, for an operation of test mode only). */
  authenticate: (requirement: { scope: Scope; testModeOnly?: boolean }) => onRequestHookHandler;
  /** Counts the request against its key's budget, or its client address's without a key. */
  limitRate: onRequestHookHandler;
  /** Counts an e-mail send against its workspace's budget of sends. */
  limitSends?: onRequestHookHandler;
  /** Refuses a body that is not a JSON object (or, for an operation that takes text such as XML, not text), then applies the Idempotency-Key rule. */
  guardWrite: (rule: Idempotency, body?: 'json' | 'text') => preHandlerHookHandler;
  /** Frees an Idempotency-Key that the answer to a write left claimed. */
  releaseUnsettledKey: onSendHookHandler;
}

export interface RouteHooks {
  onRequest: onRequestHookHandler[];
  preHandler: preHandlerHookHandler[];
  onSend: onSendHookHandler[];
}

/**
 * The hooks of an operation's route, read from its contract entry: authentication and scope when
 * it has a scope, then the rate limit (after authentication, which names the budget: the key's, or
 * without one the client address's), and for a write the body and Idempotency-Key checks once the
 * body is parsed, and as it is answered the release of a key its answer left claimed. Each route
 * carries exactly these, in this order, whatever else is registered.
 */
/** Operations that also count against their workspace's budget of e-mail sends. */
const SENDS_EMAIL = new Set(['sendInvoice']);

export const routeHooksOf = (operation: Operation, guards: RouteGuards): RouteHooks => ({
  onRequest:
    operation.scope === null
      ? [guards.limitRate]
      : [guards.authenticate({ scope: operation.scope, testModeOnly: operation.testModeOnly ?? false }), guards.limitRate, ...(guards.limitSends && SENDS_EMAIL.has(operation.operationId) ? [guards.limitSends] : [])],
  preHandler: operation.method === 'GET' ? [] : [operation.bodyContentType ? guards.guardWrite(operation.idempotency, 'text') : guards.guardWrite(operation.idempotency)],
  onSend: operation.method === 'GET' ? [] : [guards.releaseUnsettledKey],
});
