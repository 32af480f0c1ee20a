import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS, type Operation } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { collectionPrefixes, seedWorkspace, type SeededWorkspace } from '../fuzz/support/fixtures.ts';
import { operationsOf, type OpenApiDocument } from '../fuzz/support/openapi.ts';
import { idPrefixOf } from '../fuzz/support/schema-arbitrary.ts';
import { startSystem, type TestSystem } from '../support/system.ts';
import { bearer, collectionOf, expectProblem, idFieldsOf, matrixHarness, withIdAt, type MatrixContext } from './support/matrix-harness.ts';

/**
 * The mode matrix (issue #26), generated from the route table like the security matrix: one
 * workspace seeded alike with its live key and with a test key, and every operation checked in
 * both directions (a live key on test IDs, a test key on live IDs): IDs of the other mode in a
 * path, a body or a filter are 404 and change nothing, no read shows the other mode's objects,
 * every object says its mode in `livemode`, and number series, webhook endpoints, events and
 * Idempotency-Keys belong to one mode.
 */

let system: TestSystem;
let receiver: Server;
let live: SeededWorkspace;
let test: SeededWorkspace;
/** Every webhook delivery that arrived, by the mode whose endpoint it was sent to. */
const deliveries: { mode: 'live' | 'test'; body: any }[] = [];
const matrix = { pathIds: 0, bodyIds: 0, filters: 0, reads: 0, objects: 0, testModeOnly: 0 };

const scoped = OPERATIONS.filter((operation) => operation.scope !== null);
const context = {} as MatrixContext;
const { send, requestFor, stateOf, settledStateOf } = matrixHarness(context);

/** Both directions: the key of the first, the IDs of the second. */
const directions = () =>
  [
    ['a live key', live, 'test', test],
    ['a test key', test, 'live', live],
  ] as const;

/** Every ID a seeded mode holds, of every kind. */
const idsOf = (seeded: SeededWorkspace) => new Set([...seeded.ids.values()].flat());

/** A request the key's mode may make at all: a live key is refused test-mode-only operations before any ID is looked at. */
const appliesTo = (operation: Operation, key: SeededWorkspace) => !(operation.testModeOnly && key.mode === 'live');

/** Whether the seed holds an object for the operation's path to name (none of a kind only the other mode makes). */
const seededFor = (operation: Operation, seeded: SeededWorkspace) => {
  if (!operation.path.includes(':id')) return true;
  const prefix = context.prefixes.get(collectionOf(operation.path));
  return prefix !== undefined && seeded.ids.has(prefix);
};

/** Every object in a JSON answer, however deeply nested, that names its kind (`object`), lists aside. */
const objectsIn = (value: unknown, found: Record<string, unknown>[] = []): Record<string, unknown>[] => {
  if (Array.isArray(value)) for (const item of value) objectsIn(item, found);
  else if (value && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    if (typeof record.object === 'string' && record.object !== 'list') found.push(record);
    for (const child of Object.values(record)) objectsIn(child, found);
  }
  return found;
};

/** Every string in a JSON answer, keys aside: where an ID of the other mode would show. */
const stringsIn = (value: unknown, found: string[] = []): string[] => {
  if (typeof value === 'string') found.push(value);
  else if (Array.isArray(value)) for (const item of value) stringsIn(item, found);
  else if (value && typeof value === 'object') for (const child of Object.values(value)) stringsIn(child, found);
  return found;
};

const post = (key: string, path: string, body?: unknown, idempotencyKey: string = randomUUID()) => send('POST', path, { ...bearer(key), 'idempotency-key': idempotencyKey }, body);

/** A new draft for the seeded customer, finalized: the finalized invoice. */
const finalizeNewInvoice = async (seeded: SeededWorkspace) => {
  const draft = await post(seeded.key, '/api/v1/invoices', { customer: seeded.ids.get('cus')![0], items: [{ description: 'Mode check', unit_amount: 1_000 }] });
  expect(draft.status, draft.text).toBe(201);
  const finalized = await post(seeded.key, `/api/v1/invoices/${draft.json.data.id}/finalize`);
  expect(finalized.status, finalized.text).toBe(200);
  return finalized.json.data as { id: string; number: string; livemode: boolean };
};

beforeAll(async () => {
  receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      deliveries.push({ mode: request.url === '/test' ? 'test' : 'live', body: JSON.parse(body) });
      response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  system = await startSystem({ env: { RATE_LIMIT_MAX: '1000000', PUBLIC_RATE_LIMIT_MAX: '1000000', WEBHOOK_ALLOWED_HOSTS: '127.0.0.1', OVERDUE_SWEEP_INTERVAL_MS: '86400000' } });
  context.gatewayUrl = system.gatewayUrl;
  context.document = (await (await fetch(`${system.gatewayUrl}/api/v1/openapi.json`)).json()) as OpenApiDocument;
  context.documented = new Map(operationsOf(context.document).map((operation) => [operation.operationId, operation]));
  const receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  live = await seedWorkspace(system, 'modes', `${receiverUrl}/live`);
  test = await seedWorkspace(system, 'modes', `${receiverUrl}/test`, { slug: live.slug, mode: 'test' });
  context.prefixes = await collectionPrefixes(live.api, OPERATIONS.filter((operation) => operation.method === 'GET').map((operation) => operation.path));
}, 180_000);

afterAll(async () => {
  console.log(
    `\nMode matrix (both directions): ${matrix.pathIds} path IDs of the other mode (404), ${matrix.bodyIds} body IDs (404), ${matrix.filters} list filters (empty), ` +
      `${matrix.reads} reads free of the other mode's IDs, ${matrix.objects} objects with the right livemode, ${matrix.testModeOnly} test-mode-only operations refused to a live key (403)\n`,
  );
  await system?.stop();
  await new Promise((resolve) => receiver?.close(resolve));
});

describe('the mode matrix, from the route table', () => {
  it('seeds one workspace twice: with its live key and with a test key, whose IDs are all different', () => {
    expect(test.workspaceId).toBe(live.workspaceId);
    expect(live.key).toMatch(/^inv_live_/);
    expect(test.key).toMatch(/^inv_test_/);
    const liveIds = idsOf(live);
    expect([...idsOf(test)].filter((id) => liveIds.has(id))).toEqual([]);
    expect(test.ids.get('cus')!.length).toBe(live.ids.get('cus')!.length);
  });

  it('every operation × an ID of the other mode in the path → 404, and the other mode is unchanged', async () => {
    for (const [label, key, otherMode, other] of directions()) {
      const before = await settledStateOf(other);
      for (const operation of scoped.filter((candidate) => candidate.path.includes(':id') && appliesTo(candidate, key))) {
        const prefix = context.prefixes.get(collectionOf(operation.path));
        // A kind that only one mode can hold (test clocks) has no ID of the other mode to try.
        if (prefix === undefined || !other.ids.has(prefix)) continue;
        const theirs = other.ids.get(prefix)![0]!;
        const { path, headers, body } = requestFor(operation, key, theirs);
        const sent = await send(operation.method, path, { ...bearer(key.key), ...headers }, body);
        expectProblem(sent, 404, 'not_found', `${operation.operationId} with ${label} on ${theirs} of ${otherMode} mode`);
        matrix.pathIds += 1;
      }
      expect(await stateOf(other), `${otherMode} mode after ${label} named its IDs`).toEqual(before);
    }
  }, 180_000);

  it('every list read and every read of one object, with each key, shows none of the other mode\'s IDs and only objects of its own mode', async () => {
    for (const [label, key, otherMode, other] of directions()) {
      const theirs = idsOf(other);
      const expected = key.mode === 'live';
      // Downloads (PDF, XML) carry no objects.
      for (const operation of scoped.filter((candidate) => candidate.method === 'GET' && !candidate.responses[200]?.contentType && appliesTo(candidate, key) && seededFor(candidate, key))) {
        const { path } = requestFor(operation, key);
        const sent = await send('GET', operation.path.includes(':') || operation.path.endsWith('account') || operation.path.includes('numbering') ? path : `${path}?limit=100`, bearer(key.key));
        expect(sent.status, `${operation.operationId} with ${label}: ${sent.text.slice(0, 200)}`).toBe(200);
        expect(stringsIn(sent.json).filter((text) => theirs.has(text)), `${operation.operationId} with ${label} shows IDs of ${otherMode} mode`).toEqual([]);
        for (const object of objectsIn(sent.json)) {
          expect({ object: object.object, livemode: object.livemode }, `${operation.operationId} with ${label}`).toEqual({ object: object.object, livemode: expected });
          matrix.objects += 1;
        }
        matrix.reads += 1;
      }
    }
    expect(matrix.objects).toBeGreaterThan(100);
  }, 180_000);

  it('a test invoice takes the next number of the test series; the live series does not move, and both modes hold the same numbers', async () => {
    const numbering = async (seeded: SeededWorkspace) => (await send('GET', '/api/v1/numbering', bearer(seeded.key))).json.data;
    const liveNumbers = async () => ((await send('GET', '/api/v1/invoices?limit=100', bearer(live.key))).json.data as { number: string | null }[]).map((invoice) => invoice.number).sort();
    const [liveBefore, testBefore, liveNumbersBefore] = [await numbering(live), await numbering(test), await liveNumbers()];
    // Seeded alike, each mode numbered its three finalized invoices from the start of its own series.
    expect(testBefore.next_number).toBe(liveBefore.next_number);
    const openNumber = async (seeded: SeededWorkspace) => (await send('GET', `/api/v1/invoices/${seeded.invoices.open}`, bearer(seeded.key))).json.data.number;
    expect(await openNumber(test)).toBe(await openNumber(live));

    const testInvoice = await finalizeNewInvoice(test);

    expect(testInvoice).toMatchObject({ number: testBefore.next_number, livemode: false });
    expect((await numbering(test)).next_number).not.toBe(testBefore.next_number);
    expect(await numbering(live)).toEqual(liveBefore);
    expect(await liveNumbers()).toEqual(liveNumbersBefore);
    // The live series then gives its next invoice the very number the test invoice holds.
    const liveInvoice = await finalizeNewInvoice(live);
    expect(liveInvoice).toMatchObject({ number: testInvoice.number, livemode: true });

    // Each finalization is an event of its own mode, delivered to that mode's endpoint alone, saying its mode.
    const deliveredFor = (invoiceId: string) => deliveries.filter((delivery) => delivery.body?.type === 'invoice.finalized' && delivery.body?.data?.object?.id === invoiceId);
    await expect.poll(() => deliveredFor(testInvoice.id).length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
    await expect.poll(() => deliveredFor(liveInvoice.id).length, { timeout: 20_000, interval: 100 }).toBeGreaterThan(0);
    expect(deliveredFor(testInvoice.id).map((delivery) => [delivery.mode, delivery.body.livemode, delivery.body.data.object.livemode])).toEqual([['test', false, false]]);
    expect(deliveredFor(liveInvoice.id).map((delivery) => [delivery.mode, delivery.body.livemode, delivery.body.data.object.livemode])).toEqual([['live', true, true]]);
    expect(deliveries.filter((delivery) => delivery.body.livemode !== (delivery.mode === 'live')), 'deliveries to an endpoint of the other mode').toEqual([]);
    const eventsOf = async (seeded: SeededWorkspace) => ((await send('GET', '/api/v1/events?type=invoice.finalized&limit=100', bearer(seeded.key))).json.data as { data: { object: { id: string } } }[]).map((event) => event.data.object.id);
    expect(await eventsOf(live)).not.toContain(testInvoice.id);
    expect(await eventsOf(test)).not.toContain(liveInvoice.id);
  }, 60_000);

  it('an Idempotency-Key used with the live key and then with the test key is two requests, not a replay across modes', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'Same key, two modes' };

    const first = await post(live.key, '/api/v1/customers', body, idempotencyKey);
    const second = await post(test.key, '/api/v1/customers', body, idempotencyKey);

    expect(first.status).toBe(201);
    expect(second.status).toBe(201);
    expect(second.headers.get('idempotent-replayed')).toBeNull();
    expect(second.json.data.id).not.toBe(first.json.data.id);
    expect([first.json.data.livemode, second.json.data.livemode]).toEqual([true, false]);
    expect((await send('GET', `/api/v1/customers/${first.json.data.id}`, bearer(test.key))).status).toBe(404);
    // Within one mode the key still replays.
    const again = await post(test.key, '/api/v1/customers', body, idempotencyKey);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.json.data.id).toBe(second.json.data.id);
  });

  it('every operation × an ID of the other mode in the body or a list filter → 404 (an empty list for filters), and nothing changed', async () => {
    for (const [label, key, otherMode, other] of directions()) {
      const otherBefore = await settledStateOf(other);
      for (const operation of scoped.filter((candidate) => appliesTo(candidate, key) && seededFor(candidate, key))) {
        const schema = context.documented.get(operation.operationId)!;
        for (const field of schema.body ? idFieldsOf(context.document, schema.body.schema) : []) {
          if (!other.ids.has(field.prefix)) continue;
          const { path, headers, body } = requestFor(operation, key);
          const base = withIdAt(body, field, other.ids.get(field.prefix)![0]!);
          const before = await settledStateOf(key);
          const sent = await send(operation.method, path, { ...bearer(key.key), ...headers }, base);
          expectProblem(sent, 404, 'not_found', `${operation.operationId} with ${label} and ${field.path.join('.')} of ${otherMode} mode`);
          expect(await stateOf(key)).toEqual(before);
          // The control: the same request naming the key's own mode's gets past the lookup.
          const control = requestFor(operation, key);
          expect((await send(operation.method, control.path, { ...bearer(key.key), ...control.headers }, control.body)).status, `${operation.operationId} with ${label} and its own IDs`).toBeLessThan(300);
          matrix.bodyIds += 1;
        }
        for (const parameter of schema.queryParams.filter((candidate) => idPrefixOf(candidate.schema))) {
          const theirs = other.ids.get(idPrefixOf(parameter.schema)!)?.[0];
          if (theirs === undefined) continue;
          const sent = await send('GET', `${requestFor(operation, key).path}?${parameter.name}=${theirs}`, bearer(key.key));
          expect({ status: sent.status, data: sent.json?.data }, `${operation.operationId}?${parameter.name}=<${otherMode} mode's> with ${label}`).toEqual({ status: 200, data: [] });
          matrix.filters += 1;
        }
      }
      expect(await settledStateOf(other), `${otherMode} mode after ${label} named its IDs in bodies`).toEqual(otherBefore);
    }
    expect(matrix.bodyIds).toBeGreaterThanOrEqual(4);
    expect(matrix.filters).toBeGreaterThanOrEqual(2);
  }, 300_000);

  it('the public page of a test invoice says it is test mode; a live invoice\'s does not', async () => {
    const page = async (token: string) => {
      const sent = await send('GET', `/i/${token}`, {});
      expect(sent.status).toBe(200);
      return sent.text;
    };
    expect(await page(test.tokens[0]!)).toContain('data-testid="test-mode"');
    expect(await page(live.tokens[0]!)).not.toContain('data-testid="test-mode"');
  });

  it('every operation for test keys only → 403 forbidden with a live key', async () => {
    for (const operation of OPERATIONS.filter((candidate) => candidate.testModeOnly)) {
      const { path, headers, body } = requestFor(operation, live, `${operation.path.split('/')[3]}_unknown`);
      const sent = await send(operation.method, path, { ...bearer(live.key), ...headers }, body);
      expectProblem(sent, 403, 'forbidden', `${operation.operationId} with a live key`);
      expect(sent.json.detail).toMatch(/test key/);
      matrix.testModeOnly += 1;
    }
  });
});
