import { OPERATIONS } from '@invoicing/contracts';
import type { onRequestHookHandler, onSendHookHandler, preHandlerHookHandler } from 'fastify';
import { describe, expect, it } from 'vitest';
import { routeHooksOf, type RouteGuards } from './route-hooks.ts';

// Named stand-ins, so the test reads which check a route runs and in which order.
const named = <H>(name: string) => Object.assign(() => {}, { check: name }) as unknown as H;
const guards: RouteGuards = {
  authenticate: ({ scope, testModeOnly }) => named<onRequestHookHandler>(`authenticate ${scope}${testModeOnly ? ', test keys only' : ''}`),
  limitRate: named<onRequestHookHandler>('rate limit'),
  guardWrite: (rule) => named<preHandlerHookHandler>(`write guard, Idempotency-Key ${rule}`),
  releaseUnsettledKey: named<onSendHookHandler>('release of an unsettled key'),
};
const checks = (hooks: readonly unknown[]) => hooks.map((hook) => (hook as { check: string }).check);

describe('the hooks of each operation, from the contract table', () => {
  it.each(OPERATIONS.map((operation) => [`${operation.method} ${operation.path}`, operation] as const))('%s', (_name, operation) => {
    const sut = routeHooksOf(operation, guards);

    const limited = operation.scope === null ? ['rate limit'] : [`authenticate ${operation.scope}${operation.testModeOnly ? ', test keys only' : ''}`, 'rate limit'];
    expect(checks(sut.onRequest)).toEqual(limited);
    expect(checks(sut.preHandler)).toEqual(operation.method === 'GET' ? [] : [`write guard, Idempotency-Key ${operation.idempotency}`]);
    expect(checks(sut.onSend)).toEqual(operation.method === 'GET' ? [] : ['release of an unsettled key']);
  });

  it('leaves no write without a scope: every write is authenticated before it is guarded', () => {
    const publicWrites = OPERATIONS.filter((operation) => operation.method !== 'GET' && operation.scope === null);
    expect(publicWrites).toEqual([]);
  });
});
