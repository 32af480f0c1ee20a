import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import { createServiceApp, INTERNAL_HEADERS } from './index.ts';

const TOKEN = 't'.repeat(32);

const makeApp = () => {
  const app = createServiceApp({ name: 'test', logger: false, internalToken: TOKEN, checkReadiness: async () => {} });
  app.get('/things/:id', async () => ({ ok: true }));
  app.post('/things/:id/archive', async (request) => ({ body: request.body ?? null }));
  return app;
};

describe('service app', () => {
  it('answers probes without a token, and a probe with a token only if it is this platform’s', async () => {
    const sut = makeApp();
    for (const url of ['/healthz', '/readyz']) {
      expect((await sut.inject({ method: 'GET', url })).statusCode, url).toBe(200);
      expect((await sut.inject({ method: 'GET', url, headers: { [INTERNAL_HEADERS.token]: TOKEN } })).statusCode, url).toBe(200);
      const foreign = await sut.inject({ method: 'GET', url, headers: { [INTERNAL_HEADERS.token]: 'o'.repeat(32) } });
      expect(foreign.statusCode, url).toBe(401);
      expect(foreign.json()).toMatchObject({ code: 'unauthenticated' });
    }
  });

  it.each([
    ['a path segment longer than the router takes', `/things/${'x'.repeat(300)}`, 404, 'not_found'],
    ['a malformed percent-encoding', '/things/%E0%A4%A', 400, 'invalid_request'],
    ['an unknown route', '/nothing-here', 404, 'not_found'],
  ])('answers %s with a problem', async (_, url, status, code) => {
    const sut = makeApp();
    const response = await sut.inject({ method: 'GET', url, headers: { [INTERNAL_HEADERS.token]: TOKEN } });
    expect(response.statusCode).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.json()).toMatchObject({ status, code, request_id: expect.any(String) });
  });

  it.each([
    ['a header value with a control character', 'GET /healthz HTTP/1.1\r\nHost: x\r\nIdempotency-Key: a\u0001b\r\n\r\n', 400],
    ['headers larger than Node takes', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'y'.repeat(20_000)}\r\n\r\n`, 431],
  ])('answers malformed HTTP (%s) with a problem and closes the connection', async (_, raw, status) => {
    const sut = makeApp();
    await sut.listen({ host: '127.0.0.1', port: 0 });
    try {
      const { port } = sut.server.address() as { port: number };
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => socket.write(raw));
        let received = '';
        socket.on('data', (chunk) => (received += chunk.toString()));
        socket.on('close', () => resolve(received));
        socket.on('error', reject);
      });
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(new RegExp(`^HTTP/1.1 ${status} `));
      expect(head).toMatch(/content-type: application\/problem\+json/i);
      expect(JSON.parse(body ?? '')).toMatchObject({ status, code: 'invalid_request', request_id: expect.any(String) });
    } finally {
      await sut.close();
    }
  });

  it('refuses a request without the internal token, and serves probes without it', async () => {
    const sut = makeApp();
    expect((await sut.inject({ method: 'GET', url: '/things/1' })).statusCode).toBe(401);
    expect((await sut.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);
  });

  it('takes an empty body sent as application/json as no body, and still parses JSON', async () => {
    const sut = makeApp();
    const send = (payload: string) =>
      sut.inject({ method: 'POST', url: '/things/1/archive', headers: { [INTERNAL_HEADERS.token]: TOKEN, 'content-type': 'application/json' }, payload });
    expect((await send('')).json()).toEqual({ body: null });
    expect((await send('{"a":1}')).json()).toEqual({ body: { a: 1 } });
    expect((await send('{"__proto__":{"x":1}}')).statusCode).toBe(400);
  });
});

describe('metrics', () => {
  it('times requests by route pattern without the token, and two apps in one process keep their own series', async () => {
    const sut = makeApp();
    const other = createServiceApp({ name: 'other', logger: false, internalToken: TOKEN, checkReadiness: async () => {} });
    other.metrics.gauge('things_waiting', 'Things waiting.', () => 7);
    await sut.inject({ method: 'GET', url: '/things/abc', headers: { [INTERNAL_HEADERS.token]: TOKEN } });

    const scraped = await sut.inject({ method: 'GET', url: '/metrics' });
    expect(scraped.statusCode).toBe(200);
    expect(scraped.body).toContain('route="/things/:id",status_code="200"');
    expect(scraped.body).not.toContain('/things/abc');
    expect(scraped.body).not.toContain('things_waiting');
    expect(scraped.body).toContain('process_resident_memory_bytes');
    expect((await other.inject({ method: 'GET', url: '/metrics' })).body).toContain('things_waiting{service="other"} 7');
  });
});
