import type { Customer } from '@invoicing/contracts';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, gatewayHeaders, INTERNAL_TOKEN, listAll, startCatalog, type Catalog, type Reply } from '../test/harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_app');
});
afterAll(() => catalog.close());

describe('reached only through the gateway', () => {
  const workspaceId = randomUUID();
  it.each<[string, Record<string, string>]>([
    ['no internal token', { 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' }],
    ['a wrong internal token', { 'x-internal-token': 'x'.repeat(40), 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test' }],
    ['no workspace', { 'x-internal-token': INTERNAL_TOKEN, 'x-api-key-id': 'key_test' }],
    ['a workspace that is not an ID', { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': 'acme', 'x-api-key-id': 'key_test' }],
  ])('answers 401 to a request with %s, and creates nothing', async (_, headers) => {
    for (const url of ['/api/v1/customers', '/api/v1/products', '/api/v1/prices']) {
      expectProblem(await catalog.app.inject({ method: 'GET', url, headers }), 401, 'unauthenticated');
    }
    expectProblem(await catalog.app.inject({ method: 'POST', url: '/api/v1/customers', headers, payload: { name: 'Sneaky' } }), 401, 'unauthenticated');
    expect(await listAll(catalog.workspace(workspaceId), '/api/v1/customers')).toEqual([]);
  });

  it('accepts the workspace in its ws_ form too', async () => {
    const workspaceId = randomUUID();
    const dashed = catalog.workspace(workspaceId);
    const created = await dashed.data<Customer>(dashed.post('/api/v1/customers', { name: 'Both forms' }));
    const prefixed = catalog.workspace(`ws_${workspaceId.replaceAll('-', '')}`);
    expect(await prefixed.data(prefixed.get(`/api/v1/customers/${created.id}`))).toEqual(created);
  });

  it('answers the probes without credentials', async () => {
    expect((await catalog.app.inject({ method: 'GET', url: '/healthz' })).json()).toEqual({ status: 'ok' });
    expect((await catalog.app.inject({ method: 'GET', url: '/readyz' })).json()).toEqual({ status: 'ready' });
  });

  it('answers an unknown route with a problem', async () => {
    expectProblem(await catalog.workspace().get('/api/v1/customerz'), 404, 'not_found');
  });
});

describe('bad input never gives a 5xx', () => {
  const post = (payload: string | Buffer, contentType = 'application/json') =>
    catalog.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { ...gatewayHeaders(workspaceId), 'content-type': contentType },
      payload,
    });
  let workspaceId: string;
  beforeAll(() => {
    workspaceId = randomUUID();
  });

  it.each<[string, () => Promise<Reply>, string[]]>([
    ['a text/plain body', () => post('{"name":"A"}', 'text/plain'), []],
    ['a form body', () => post('name=A', 'application/x-www-form-urlencoded'), []],
    ['no Content-Type', () => catalog.app.inject({ method: 'POST', url: '/api/v1/customers', headers: gatewayHeaders(workspaceId), payload: Buffer.from('{"name":"A"}') }), []],
    ['no body at all', () => catalog.app.inject({ method: 'POST', url: '/api/v1/customers', headers: gatewayHeaders(workspaceId) }), []],
    ['an empty JSON body', () => post(''), []],
    ['malformed JSON', () => post('{"name": "A",'), []],
    ['a JSON string instead of an object', () => post('"A"'), []],
    ['null', () => post('null'), []],
    ['a number too large for a double', () => post('{"name": 1e400}'), ['name']],
    ['__proto__ in the body', () => post('{"name": "A", "__proto__": {"admin": true}}'), []],
    ['a NUL character in the name', () => post(JSON.stringify({ name: 'nul\u0000byte' })), ['name']],
    ['a NUL character inside the address', () => post(JSON.stringify({ name: 'A', address: { line1: 'x\u0000y' } })), ['address.line1']],
    ['a huge name (900 kB)', () => post(JSON.stringify({ name: 'n'.repeat(900_000) })), ['name']],
    // Refused before parsing (JSON_NESTING_MAX), so the problem names no field.
    ['deep nesting inside a field', () => post(`{"name": "A", "address": {"line1": ${'['.repeat(50_000)}${']'.repeat(50_000)}}}`), []],
    ['a deeply nested body', () => post(`${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`), []],
    ['wrong types everywhere', () => post(JSON.stringify({ name: { first: 'A' }, email: 7, phone: true, tax_id: [], address: 5 })), ['name', 'email', 'phone', 'tax_id', 'address']],
  ])('refuses %s with 400 and creates nothing', async (_, send, paths) => {
    expectProblem(await send(), 400, 'invalid_request', paths);
    expect(await listAll(catalog.workspace(workspaceId), '/api/v1/customers?include_deleted=true')).toEqual([]);
  });

  it('refuses a body over 1 MiB with 413', async () => {
    expectProblem(await post(JSON.stringify({ name: 'n'.repeat(1_100_000) })), 413, 'payload_too_large');
  });

  it('stores invalid UTF-8 as replacement characters rather than failing', async () => {
    const payload = Buffer.concat([Buffer.from('{"name": "Bad '), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from(' bytes"}')]);
    const reply = await post(payload);
    expect(reply.statusCode).toBe(201);
    expect(reply.json<{ data: Customer }>().data.name).toMatch(/^Bad \uFFFD+ bytes$/);
  });

  it('refuses a NUL character in a search with 400 on q', async () => {
    expectProblem(await catalog.workspace().get('/api/v1/customers?q=a%00b'), 400, 'invalid_request', ['q']);
  });

  it.each([
    ['invalid percent-encoding in a search', '/api/v1/products?q=%E0%A4%A'],
    ['a huge search', `/api/v1/customers?q=${'q'.repeat(5000)}`],
    ['a repeated limit', '/api/v1/prices?limit=1&limit=2'],
  ])('answers %s with a 4xx or an empty page, never a 5xx', async (_, url) => {
    const reply = await catalog.workspace().get(url);
    expect(reply.statusCode, reply.body).toBeLessThan(500);
    if (reply.statusCode === 200) expect(reply.json()).toEqual({ data: [], next_cursor: null });
    else expect(reply.headers['content-type']).toMatch(/^application\/problem\+json/);
  });
});
