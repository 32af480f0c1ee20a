import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OPERATIONS } from '@invoicing/contracts';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_KEYED } from './idempotency.generated.ts';
import { createInvoicingClient, verifyWebhook, WebhookVerificationError } from './index.ts';

interface Seen {
  method: string;
  url: string;
  key: string | undefined;
  authorization: string | undefined;
}

/** A stand-in gateway answering from a script: each request takes the next answer. */
let script: ((response: ServerResponse) => void)[] = [];
const seen: Seen[] = [];
const server = createServer((request: IncomingMessage, response: ServerResponse) => {
  seen.push({ method: request.method!, url: request.url!, key: request.headers['idempotency-key'] as string | undefined, authorization: request.headers.authorization });
  request.resume();
  request.on('end', () => (script.shift() ?? ok)(response));
});
let baseUrl: string;

const json = (status: number, body: unknown, headers: Record<string, string> = {}) => (response: ServerResponse) =>
  response.writeHead(status, { 'content-type': status >= 400 ? 'application/problem+json' : 'application/json', ...headers }).end(JSON.stringify(body));
const ok = json(200, { data: { id: 'cus_1', object: 'customer' } });
const drop = (response: ServerResponse) => response.socket?.destroy();

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
  script = [];
  seen.length = 0;
});

const makeClient = () => createInvoicingClient({ baseUrl, apiKey: 'inv_live_test', retry: { baseDelayMs: 1, maxDelayMs: 20 } });

describe('the typed client', () => {
  it('sets a fresh Idempotency-Key on every write that takes one, keeps one the caller set, and none on reads', async () => {
    const sut = makeClient();
    await sut.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: 'in_1' } }, body: {} });
    await sut.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: 'in_1' } }, body: {} });
    await sut.POST('/api/v1/customers', { params: { header: { 'Idempotency-Key': 'mine' } }, body: { name: 'A' } });
    await sut.GET('/api/v1/customers/{id}', { params: { path: { id: 'cus_1' } } });
    const [first, second, mine, read] = seen;
    expect(first!.key).toMatch(/^[0-9a-f-]{36}$/);
    expect(second!.key).not.toBe(first!.key);
    expect(mine!.key).toBe('mine');
    expect(read!.key).toBeUndefined();
    expect(read!.authorization).toBe('Bearer inv_live_test');
  });

  it('retries a keyed write after 503, 429 and a lost connection, under the same key, until it gets an answer', async () => {
    script = [json(503, { code: 'unavailable' }), json(429, { code: 'rate_limited' }, { 'retry-after': '0' }), drop, ok];
    const { response } = await makeClient().POST('/api/v1/customers', { body: { name: 'A' } });
    expect(response.status).toBe(200);
    expect(seen).toHaveLength(4);
    expect(new Set(seen.map((request) => request.key)).size).toBe(1);
  });

  it('retries while another request holds the key, and never after an answer that is final', async () => {
    script = [json(409, { code: 'idempotency_key_in_use' }), ok];
    expect((await makeClient().POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: 'in_1' } } })).response.status).toBe(200);
    expect(seen).toHaveLength(2);

    seen.length = 0;
    script = [json(409, { code: 'invalid_state' }), ok];
    expect((await makeClient().POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: 'in_1' } } })).response.status).toBe(409);
    script = [json(400, { code: 'invalid_request' }), ok];
    expect((await makeClient().GET('/api/v1/customers', {})).response.status).toBe(400);
    expect(seen).toHaveLength(2);
  });

  it('gives up after its retries and returns the last answer', async () => {
    script = Array.from({ length: 10 }, () => json(503, { code: 'unavailable' }));
    const sut = createInvoicingClient({ baseUrl, retry: { retries: 2, baseDelayMs: 1 } });
    expect((await sut.GET('/api/v1/customers', {})).response.status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it("knows every operation that takes an Idempotency-Key, as the contracts declare them (run `npm run generate:client` if not)", () => {
    const declared = Object.fromEntries(
      OPERATIONS.filter((operation) => operation.idempotency !== 'none').map((operation) => [
        `${operation.method} ${operation.path.replace(/:([A-Za-z_]+)/g, '{$1}')}`,
        operation.idempotency,
      ]),
    );
    expect(IDEMPOTENCY_KEYED).toEqual(declared);
  });
});

describe('verifyWebhook', () => {
  const secret = `whsec_${Buffer.from('a'.repeat(24)).toString('base64')}`;
  const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid', created: 1, data: { object: { id: 'in_1' } } });
  const signed = (payload: string, at = new Date()) => {
    const signature = new Webhook(secret).sign('msg_1', at, payload);
    return { 'webhook-id': 'msg_1', 'webhook-timestamp': String(Math.floor(at.getTime() / 1000)), 'webhook-signature': signature };
  };

  it('returns the event of a webhook we signed, from Node or fetch headers', () => {
    expect(verifyWebhook(secret, body, signed(body))).toMatchObject({ id: 'evt_1', type: 'invoice.paid' });
    expect(verifyWebhook(secret, Buffer.from(body), new Headers(signed(body))).id).toBe('evt_1');
  });

  it('refuses a changed body, another secret and a stale timestamp', () => {
    expect(() => verifyWebhook(secret, body.replace('in_1', 'in_2'), signed(body))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(`whsec_${Buffer.from('b'.repeat(24)).toString('base64')}`, body, signed(body))).toThrow(WebhookVerificationError);
    expect(() => verifyWebhook(secret, body, signed(body, new Date(Date.now() - 600_000)))).toThrow(WebhookVerificationError);
  });
});
