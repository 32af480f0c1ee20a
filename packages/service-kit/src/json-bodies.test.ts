import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { acceptJsonBodiesOnly, JSON_NESTING_MAX, nestsDeeperThan as sut } from './json-bodies.ts';
import { registerProblemHandlers } from './problem.ts';

describe('nestsDeeperThan', () => {
  it.each<[string, string, number, boolean]>([
    ['a flat object', '{"a":1}', 1, false],
    ['an object in an array at the limit', '[{"a":1}]', 2, false],
    ['one level past the limit', '[{"a":[1]}]', 2, true],
    ['brackets inside strings', '{"a":"[[[[{{{{"}', 1, false],
    ['an escaped quote inside a string', '{"a":"\\"[[[["}', 1, false],
    ['siblings do not add up', '[[1],[2],[3],[4]]', 2, false],
  ])('%s', (_, text, max, expected) => {
    expect(sut(text, max)).toBe(expected);
  });
});

describe('acceptJsonBodiesOnly', () => {
  const app = Fastify();
  registerProblemHandlers(app);
  acceptJsonBodiesOnly(app);
  app.post('/echo', async (request) => ({ received: request.body }));

  it('refuses a body nested past the limit with a 400 problem, whatever the depth', async () => {
    for (const depth of [JSON_NESTING_MAX + 1, 10_000, 100_000]) {
      const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload: `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}` });
      expect(response.statusCode).toBe(400);
      expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(response.json()).toMatchObject({ code: 'invalid_request' });
    }
  });

  it('parses a body nested up to the limit', async () => {
    const payload = `${'['.repeat(JSON_NESTING_MAX)}${']'.repeat(JSON_NESTING_MAX)}`;
    const response = await app.inject({ method: 'POST', url: '/echo', headers: { 'content-type': 'application/json' }, payload });
    expect(response.statusCode).toBe(200);
  });
});
