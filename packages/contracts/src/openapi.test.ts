import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { buildOpenApiDocument } from './openapi.ts';
import { defineOperation } from './operation.ts';
import { OPERATIONS } from './routes.ts';

type Node = Record<string, unknown>;
const document = buildOpenApiDocument() as unknown as { paths: Record<string, Record<string, Node>>; components: Record<string, Record<string, unknown>> };

/** Whether a node, or a component it refers to, carries an `example` or `examples`. */
const hasExample = (node: unknown, seen = new Set<string>()): boolean => {
  if (typeof node !== 'object' || node === null) return false;
  if (Array.isArray(node)) return node.some((item) => hasExample(item, seen));
  return Object.entries(node).some(([key, value]) => {
    if (key === 'example' || key === 'examples') return true;
    if (key !== '$ref' || typeof value !== 'string') return hasExample(value, seen);
    if (seen.has(value)) return false;
    seen.add(value);
    const [, , kind, name] = value.split('/');
    return hasExample(document.components[kind!]?.[name!], seen);
  });
};

const operationsOf = () =>
  Object.entries(document.paths).flatMap(([path, methods]) => Object.entries(methods).map(([method, operation]) => ({ name: `${method.toUpperCase()} ${path}`, operation })));

describe('examples in the OpenAPI document', () => {
  it('shows an example of every JSON or HTML body an operation takes or answers with', () => {
    const missing: string[] = [];
    for (const { name, operation } of operationsOf()) {
      const requestBody = operation.requestBody as Node | undefined;
      if (requestBody && !hasExample(requestBody)) missing.push(`${name} request`);
      const successes = Object.entries(operation.responses as Record<string, Node>).filter(([status]) => status.startsWith('2'));
      for (const [status, response] of successes) {
        const content = (response.content ?? {}) as Record<string, unknown>;
        // A PDF or an empty 204 has nothing to show beyond its description.
        const shown = Object.entries(content).filter(([type]) => type !== 'application/pdf');
        if (shown.length > 0 && !hasExample(shown)) missing.push(`${name} ${status}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it("shows request examples the API accepts: each parses with its operation's body schema", () => {
    for (const operation of OPERATIONS.filter((candidate) => candidate.body)) {
      const path = operation.path.replace(/:([A-Za-z_]+)/g, '{$1}');
      const media = (document.paths[path]?.[operation.method.toLowerCase()]?.requestBody as { content: Record<string, { example?: unknown }> }).content['application/json'];
      if (media?.example === undefined) continue;
      expect(operation.body!.safeParse(media.example).error, operation.operationId).toBeUndefined();
    }
  });
});

describe('operations for test keys only', () => {
  it('are marked x-test-mode-only, and the reference explains live and test keys', () => {
    const madeUp = defineOperation({
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
    const built = buildOpenApiDocument({ operations: [madeUp, { ...madeUp, operationId: 'listMadeUpClocks', method: 'GET', path: '/api/v1/made_up_clocks', testModeOnly: undefined }] }) as unknown as {
      info: { description: string };
      paths: Record<string, Record<string, Node>>;
    };

    expect(built.paths['/api/v1/made_up_clocks/{id}/advance']!.post!['x-test-mode-only']).toBe(true);
    expect(built.paths['/api/v1/made_up_clocks']!.get!['x-test-mode-only']).toBeUndefined();
    expect(built.info.description).toMatch(/inv_test_/);
    expect(built.info.description).toMatch(/livemode/);
  });
});
