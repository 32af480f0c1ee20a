import { parsePublicId } from '@invoicing/contracts';
import { Readable } from 'node:stream';
import { request } from 'undici';
import { freePort } from '@invoicing/testing';
import { beforeAll, describe, expect, it } from 'vitest';
import { bearer, INTERNAL_TOKEN, useGatewayBehindRecorder } from '../../testing/gateway-fixture.ts';

let key: string;
let workspaceId: string;
let keyId: string;

// Billing is deliberately left at an address where nothing listens.
const fixture = useGatewayBehindRecorder(async (upstreamUrl) => ({
  CATALOG_URL: upstreamUrl,
  DOCUMENTS_URL: upstreamUrl,
  BILLING_URL: `http://127.0.0.1:${await freePort()}`,
  UPSTREAM_TIMEOUT_MS: '300',
}));

beforeAll(async () => {
  const created = await fixture.gateway.createKey(['clients:read', 'clients:write', 'invoices:read']);
  ({ key, workspace_id: workspaceId } = created);
  keyId = parsePublicId('apiKey', created.key_id)!;
});

const lastReceived = () => fixture.upstream.received.at(-1)!;

describe('forwarding', () => {
  it('forwards path, query and JSON body unchanged and returns the service response as is', async () => {
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_1' } }, headers: { location: '/api/v1/customers/cus_1' } }));
    const response = await fixture.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/customers?expand=none',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: { name: 'Ada', address: { city: 'Paris' } },
    });

    expect(response.statusCode).toBe(201);
    expect(response.json()).toEqual({ data: { id: 'cus_1' } });
    expect(response.headers.location).toBe('/api/v1/customers/cus_1');
    expect(lastReceived()).toMatchObject({ method: 'POST', url: '/api/v1/customers?expand=none' });
    expect(JSON.parse(lastReceived().body as string)).toEqual({ name: 'Ada', address: { city: 'Paris' } });
  });

  it('tells the service who calls, with headers that only the gateway sets, and keeps the API key from it', async () => {
    fixture.upstream.answerWith(() => ({ status: 200, body: { data: [] } }));
    await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/customers/cus_1', headers: { ...bearer(key), 'x-request-id': 'trace-42' } });

    const { headers } = lastReceived();
    expect(headers['x-internal-token']).toBe(INTERNAL_TOKEN);
    expect(headers['x-workspace-id']).toBe(workspaceId);
    expect(headers['x-api-key-id']).toBe(keyId);
    expect(headers['x-request-id']).toBe('trace-42');
    expect(headers.authorization).toBeUndefined();
  });

  it('drops internal headers a client sends, so no one can pose as another workspace or as the gateway', async () => {
    const other = await fixture.gateway.createKey(['clients:read'], 'someone-else');
    fixture.upstream.answerWith(() => ({ status: 200, body: {} }));
    await fixture.gateway.app.inject({
      method: 'GET',
      url: '/api/v1/customers',
      headers: {
        ...bearer(key),
        'x-internal-token': 'forged',
        'x-workspace-id': other.workspace_id,
        'x-api-key-id': 'forged',
        'x-idempotency-key': 'forged',
      },
    });

    const { headers } = lastReceived();
    expect(headers['x-internal-token']).toBe(INTERNAL_TOKEN);
    expect(headers['x-workspace-id']).toBe(workspaceId);
    expect(headers['x-api-key-id']).toBe(keyId);
    expect(headers['x-idempotency-key']).toBeUndefined();
  });

  it('relays large bodies (a PDF) byte for byte', async () => {
    const pdf = Buffer.alloc(300 * 1024, 7);
    pdf.write('%PDF-1.7');
    fixture.upstream.answerWith(() => ({ status: 200, body: pdf, headers: { 'content-type': 'application/pdf' } }));
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/invoices/in_1/pdf', headers: bearer(key) });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.rawPayload.equals(pdf)).toBe(true);
  });

  it('answers HEAD of a large body (a PDF) with its length and no body', async () => {
    const pdf = Buffer.alloc(300 * 1024, 7);
    fixture.upstream.answerWith(() => ({ status: 200, body: pdf, headers: { 'content-type': 'application/pdf' } }));
    const response = await fixture.gateway.app.inject({ method: 'HEAD', url: '/api/v1/invoices/in_1/pdf', headers: bearer(key) });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toBe('application/pdf');
    expect(response.headers['content-length']).toBe(String(pdf.length));
    expect(response.rawPayload.length).toBe(0);
  });

  it('forwards no hop-by-hop header, nor one the client names in Connection', async () => {
    fixture.upstream.answerWith(() => ({ status: 200, body: {} }));
    await fixture.gateway.app.inject({
      method: 'GET',
      url: '/api/v1/customers',
      headers: { ...bearer(key), connection: 'keep-alive, x-hop', 'x-hop': 'only to the gateway', 'proxy-connection': 'keep-alive', 'x-end-to-end': 'kept' },
    });

    const { headers } = lastReceived();
    expect(headers['x-hop']).toBeUndefined();
    expect(headers['proxy-connection']).toBeUndefined();
    expect(headers['x-end-to-end']).toBe('kept');
  });

  it('authenticates HEAD like the GET of the same path', async () => {
    fixture.upstream.answerWith(() => ({ status: 200, body: { data: {} } }));
    const anonymous = await fixture.gateway.app.inject({ method: 'HEAD', url: '/api/v1/customers/cus_1' });
    const signedIn = await fixture.gateway.app.inject({ method: 'HEAD', url: '/api/v1/customers/cus_1', headers: bearer(key) });

    expect(anonymous.statusCode).toBe(401);
    expect(signedIn.statusCode).toBe(200);
  });

  it('forwards public routes (the public invoice page) without credentials and without a workspace', async () => {
    fixture.upstream.answerWith(() => ({ status: 200, body: '<html>invoice</html>', headers: { 'content-type': 'text/html; charset=utf-8' } }));
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/i/tok_123', headers: { 'x-workspace-id': workspaceId } });

    expect(response.statusCode).toBe(200);
    expect(response.body).toBe('<html>invoice</html>');
    const { url, headers } = lastReceived();
    expect(url).toBe('/i/tok_123');
    expect(headers['x-internal-token']).toBe(INTERNAL_TOKEN);
    expect(headers['x-workspace-id']).toBeUndefined();
  });

  it('passes service errors through as the service wrote them', async () => {
    const problem = { type: 'x', title: 'Not found', status: 404, detail: 'No customer', code: 'not_found', request_id: 'r' };
    fixture.upstream.answerWith(() => ({ status: 404, body: problem, headers: { 'content-type': 'application/problem+json' } }));
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/customers/cus_404', headers: bearer(key) });

    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toEqual(problem);
  });

  it('answers 503 unavailable as a problem, quickly, when the service is down', async () => {
    const started = Date.now();
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/invoices', headers: bearer(key) });

    expect(response.statusCode).toBe(503);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'unavailable', request_id: response.headers['x-request-id'] });
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers 503 unavailable when the service does not answer within the upstream timeout', async () => {
    fixture.upstream.answerWith(() => ({ status: 200, body: {}, delayMs: 1_000 }));
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/customers', headers: bearer(key) });

    expect(response.statusCode).toBe(503);
    expect(response.json().code).toBe('unavailable');
  });
});

describe('requests the gateway refuses itself', () => {
  it.each([
    ['an unknown path', 'GET', '/api/v1/nothing-here'],
    ['a path outside the API', 'GET', '/'],
  ])('answers 404 not_found as a problem to %s', async (_name, method, url) => {
    const response = await fixture.gateway.app.inject({ method: method as 'GET', url, headers: bearer(key) });

    expect(response.statusCode).toBe(404);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'not_found', request_id: response.headers['x-request-id'] });
  });

  it.each([
    ['PUT', '/api/v1/customers', 'GET, HEAD, POST'],
    ['POST', '/api/v1/invoices/in_0190f3e2c1b27a8e9d1f3c4b5a697887', 'DELETE, GET, HEAD, PATCH'],
    ['DELETE', '/i/some-token/pdf', 'GET, HEAD'],
  ])('answers 405 method_not_allowed with Allow to %s on a known path (%s)', async (method, url, allow) => {
    const before = fixture.upstream.received.length;
    const response = await fixture.gateway.app.inject({ method: method as 'GET', url, headers: bearer(key) });

    expect(response.statusCode).toBe(405);
    expect(response.headers.allow).toBe(allow);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ code: 'method_not_allowed', status: 405, request_id: response.headers['x-request-id'] });
    expect(fixture.upstream.received.length).toBe(before);
  });

  it.each([
    ['text/plain', 'text/plain', '{"name":"Ada"}'],
    ['form data', 'application/x-www-form-urlencoded', 'name=Ada'],
    ['no content type', undefined, '{"name":"Ada"}'],
  ])('answers 400 to a body sent as %s', async (_name, contentType, payload) => {
    const before = fixture.upstream.received.length;
    const response = await fixture.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { ...bearer(key), ...(contentType ? { 'content-type': contentType } : {}) },
      payload,
    });

    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_request');
    expect(fixture.upstream.received.length).toBe(before);
  });

  it.each([
    ['malformed JSON', '{"name":'],
    ['a JSON array', '[1,2]'],
    ['a JSON string', '"Ada"'],
    ['JSON null', 'null'],
  ])('answers 400 to %s', async (_name, payload) => {
    const response = await fixture.gateway.app.inject({
      method: 'PATCH',
      url: '/api/v1/customers/cus_1',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload,
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_request');
  });

  it('answers 413 payload_too_large to a body over 1 MiB', async () => {
    const before = fixture.upstream.received.length;
    const response = await fixture.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/customers',
      headers: { ...bearer(key), 'content-type': 'application/json' },
      payload: JSON.stringify({ name: 'x'.repeat(1024 * 1024) }),
    });

    expect(response.statusCode).toBe(413);
    expect(response.json().code).toBe('payload_too_large');
    expect(fixture.upstream.received.length).toBe(before);
  });
});

describe('request ids', () => {
  it('keeps a well-formed client request id and makes one up for anything else', async () => {
    const kept = await fixture.gateway.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'client-id-1' } });
    const replaced = await fixture.gateway.app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'bad id\twith spaces' } });

    expect(kept.headers['x-request-id']).toBe('client-id-1');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('public routes', () => {
  it('serves the OpenAPI 3.1 document without credentials, naming the gateway as server', async () => {
    const response = await fixture.gateway.app.inject({ method: 'GET', url: '/api/v1/openapi.json' });

    expect(response.statusCode).toBe(200);
    expect(response.headers['content-type']).toMatch(/^application\/json/);
    const document = response.json();
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([{ url: 'http://localhost:8080' }]);
    expect(Object.keys(document.paths)).toContain('/api/v1/customers/{id}');
  });

  it('is alive on /healthz and ready on /readyz when the database and the configured services answer', async () => {
    expect((await fixture.gateway.app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
    // BILLING_URL is set explicitly and nothing listens there: not ready.
    const notReady = await fixture.gateway.app.inject({ method: 'GET', url: '/readyz' });
    expect(notReady.statusCode).toBe(503);
    expect(notReady.json()).toMatchObject({ code: 'unavailable', detail: expect.stringContaining('billing') });
    // A probe that presents a token other than this platform's learns that this gateway is not its own.
    const foreign = await fixture.gateway.app.inject({ method: 'GET', url: '/readyz', headers: { 'x-internal-token': 'o'.repeat(40) } });
    expect(foreign.statusCode).toBe(401);
    expect(foreign.json()).toMatchObject({ code: 'unauthenticated' });
  });
});

describe('a body nobody reads', () => {
  it('is read to its end before the answer, so an answer to a GET still uploading 600 kB comes whole on a connection kept open', async () => {
    const page = `<html>${'x'.repeat(80 * 1024)}</html>`;
    fixture.upstream.answerWith(() => ({ status: 200, body: page, headers: { 'content-type': 'text/html; charset=utf-8' } }));
    // A real connection (inject has none): the fixture's close ends the listening too.
    await fixture.gateway.app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = fixture.gateway.app.server.address() as { port: number };
    // The body arrives in pieces, well after the service has answered.
    async function* slowBody() {
      for (let piece = 0; piece < 6; piece++) {
        await new Promise((resolve) => setTimeout(resolve, 40));
        yield Buffer.alloc(100 * 1024, 0x20);
      }
    }
    const response = await request(`http://127.0.0.1:${port}/i/tok_123`, { method: 'GET', headers: { 'content-type': 'application/json' }, body: Readable.from(slowBody()) });
    const text = await response.body.text();

    expect(response.statusCode).toBe(200);
    expect(text).toBe(page);
    expect(response.headers.connection).not.toBe('close');
  });
});
