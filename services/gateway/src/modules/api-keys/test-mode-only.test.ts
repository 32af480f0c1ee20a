import { defineOperation } from '@invoicing/contracts';
import { newId, registerProblemHandlers } from '@invoicing/service-kit';
import { dataSpaceOf, type Mode } from '@invoicing/service-kit/data-space';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { routeHooksOf, type RouteGuards } from '../routing/route-hooks.ts';
import { ApiKeyCache, type ActiveKey } from './api-key.cache.ts';
import { mintApiKey } from './api-key.domain.ts';
import { authenticationHook } from './authentication.hook.ts';
import { KeyLookupBudget } from './key-lookup-budget.ts';

// A made-up operation for test keys only, as test clocks are: the gateway's rule does not depend on which operation it is.
const advanceMadeUpClock = defineOperation({
  operationId: 'advanceMadeUpClock',
  summary: 'Advance a made-up clock',
  tag: 'Test clocks',
  method: 'POST',
  path: '/api/v1/made_up_clocks/:id/advance',
  service: 'billing',
  scope: 'invoices:write',
  idempotency: 'none',
  testModeOnly: true,
  responses: { 200: { description: 'Advanced', schema: z.object({ ok: z.boolean() }) } },
});
const listMadeUpThings = defineOperation({ ...advanceMadeUpClock, operationId: 'listMadeUpThings', method: 'GET', path: '/api/v1/made_up_things', testModeOnly: undefined });

const WORKSPACE = newId();
const keys = new Map<string, ActiveKey>();
const keyOf = (mode: Mode, scopes: string[] = ['invoices:write']): string => {
  const keyId = newId();
  const { key, keyHash } = mintApiKey(keyId, mode);
  keys.set(keyId, { keyId, workspaceId: WORKSPACE, mode, spaceId: dataSpaceOf(WORKSPACE, mode), keyHash: Buffer.from(keyHash, 'hex'), scopes: new Set(scopes) });
  return key;
};

const sut = Fastify();
beforeAll(async () => {
  const authenticate = authenticationHook(new ApiKeyCache({ load: async (keyId) => keys.get(keyId), ttlMs: 60_000, maxEntries: 100 }), new KeyLookupBudget({ max: 1_000, windowMs: 60_000 }));
  // Only authentication is under test: the other checks let everything through.
  const guards: RouteGuards = {
    authenticate,
    limitRate: (_request, _reply, done) => done(),
    guardWrite: () => (_request, _reply, done) => done(),
    releaseUnsettledKey: (_request, _reply, payload, done) => done(null, payload),
  };
  registerProblemHandlers(sut);
  sut.decorateRequest('principal', null);
  for (const operation of [advanceMadeUpClock, listMadeUpThings]) {
    const hooks = routeHooksOf(operation, guards);
    sut.route({ method: operation.method, url: operation.path, onRequest: hooks.onRequest, handler: async (request) => ({ space: request.principal?.spaceId }) });
  }
  await sut.ready();
});
afterAll(() => sut.close());

const call = (method: 'GET' | 'POST', url: string, key: string) => sut.inject({ method, url, headers: { authorization: `Bearer ${key}` } });

describe('operations for test keys only', () => {
  it('answer a live key 403 forbidden, as problem+json saying a test key is needed', async () => {
    const response = await call('POST', '/api/v1/made_up_clocks/clock_1/advance', keyOf('live'));

    expect(response.statusCode).toBe(403);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status: 403, code: 'forbidden', detail: expect.stringMatching(/test clocks need a test key/) });
  });

  it('let a test key through, in its test data space', async () => {
    const response = await call('POST', '/api/v1/made_up_clocks/clock_1/advance', keyOf('test'));

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ space: dataSpaceOf(WORKSPACE, 'test') });
  });

  it('still check the scope first: a test key without it is refused for the scope', async () => {
    const response = await call('POST', '/api/v1/made_up_clocks/clock_1/advance', keyOf('test', ['clients:read']));

    expect(response.statusCode).toBe(403);
    expect(response.json().detail).toContain('invoices:write');
  });

  it('leave other operations to live keys as before', async () => {
    const response = await call('GET', '/api/v1/made_up_things', keyOf('live'));

    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ space: WORKSPACE });
  });
});
