import { sql } from 'kysely';
import { randomUUID } from 'node:crypto';
import { connect, type AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from '@invoicing/testing';
import { beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../config.ts';
import { bearer, INTERNAL_TOKEN, useGatewayBehindRecorder } from '../../testing/gateway-fixture.ts';
import { fingerprintOf } from './idempotency.domain.ts';
import { createIdempotencyService } from './idempotency.service.ts';

let key: string;
let workspaceId: string;

// Notifications is left at an address where nothing listens. Leases are short here (renewed
// every third of a second), so a test sees a request outlast several of them.
const LEASE_MS = 1_000;
const fixture = useGatewayBehindRecorder(async (upstreamUrl) => ({
  CATALOG_URL: upstreamUrl,
  BILLING_URL: upstreamUrl,
  NOTIFICATIONS_URL: `http://127.0.0.1:${await freePort()}`,
  IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
}));

beforeAll(async () => {
  ({ key, workspace_id: workspaceId } = await fixture.gateway.createKey(['clients:write', 'clients:read', 'invoices:write', 'invoices:finalize', 'webhooks:write']));
});

let created = 0;
beforeEach(() => {
  fixture.upstream.answerWith((request) => ({
    status: 201,
    body: { data: { id: `cus_${(created += 1)}`, received: JSON.parse(request.body as string) } },
    headers: { location: `/api/v1/customers/cus_${created}`, 'x-upstream-note': 'first' },
  }));
});

const createCustomer = (body: object, idempotencyKey?: string, apiKey = key) =>
  fixture.gateway.app.inject({
    method: 'POST',
    url: '/api/v1/customers',
    headers: { ...bearer(apiKey), 'content-type': 'application/json', ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }) },
    payload: body,
  });

const forwardedWith = (idempotencyKey: string) => fixture.upstream.received.filter((request) => request.headers['x-idempotency-key'] === idempotencyKey);

describe('Idempotency-Key', () => {
  it('is required where the operation says so: 428 without it, and nothing is forwarded', async () => {
    const before = fixture.upstream.received.length;
    const response = await fixture.gateway.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/in_1/finalize',
      headers: bearer(key),
    });

    expect(response.statusCode).toBe(428);
    expect(response.json()).toMatchObject({ code: 'idempotency_key_required', request_id: response.headers['x-request-id'] });
    expect(fixture.upstream.received.length).toBe(before);
  });

  it('is optional elsewhere: a create without one is forwarded and not recorded', async () => {
    const first = await createCustomer({ name: 'Ada' });
    const second = await createCustomer({ name: 'Ada' });

    expect([first.statusCode, second.statusCode]).toEqual([201, 201]);
    expect(second.json().data.id).not.toBe(first.json().data.id);
    expect(second.headers['idempotent-replayed']).toBeUndefined();
  });

  it('is refused with 400 when longer than 255 characters', async () => {
    const response = await createCustomer({ name: 'Ada' }, 'k'.repeat(256));
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('invalid_request');
  });

  it('replays the first outcome (status, headers, body) for the same key and body, without forwarding again', async () => {
    const idempotencyKey = randomUUID();
    const first = await createCustomer({ name: 'Ada', email: 'ada@example.com' }, idempotencyKey);
    const replay = await createCustomer({ email: 'ada@example.com', name: 'Ada' }, idempotencyKey);

    expect(first.statusCode).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(first.body);
    expect(replay.headers.location).toBe(first.headers.location);
    expect(replay.headers['x-upstream-note']).toBe('first');
    expect(replay.headers['content-type']).toBe(first.headers['content-type']);
    expect(replay.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('records and replays an answer the service streamed without a length (chunked), byte for byte', async () => {
    const streamed = JSON.stringify({ data: { id: 'cus_streamed', note: 'x'.repeat(70_000) } });
    fixture.upstream.answerWith(() => ({ status: 201, body: Readable.from([Buffer.from(streamed)]), headers: { 'content-type': 'application/json; charset=utf-8' } }));
    const idempotencyKey = randomUUID();
    const first = await createCustomer({ name: 'Ada' }, idempotencyKey);
    const replay = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect(first.statusCode).toBe(201);
    expect(first.body).toBe(streamed);
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.body).toBe(streamed);
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('records the answer to a write without a body (a finalize) whose client left before it came', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 200, body: { data: { id: 'in_left', status: 'open' } }, delayMs: 300 }));
    await fixture.gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = fixture.gateway.app.server.address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    socket.write(
      `POST /api/v1/invoices/in_left/finalize HTTP/1.1\r\nHost: gateway\r\nAuthorization: Bearer ${key}\r\nIdempotency-Key: ${idempotencyKey}\r\nContent-Length: 0\r\n\r\n`,
    );
    await expect.poll(() => forwardedWith(idempotencyKey).length, { timeout: 2_000, interval: 10 }).toBe(1);
    socket.destroy();

    const finalize = () => fixture.gateway.app.inject({ method: 'POST', url: '/api/v1/invoices/in_left/finalize', headers: { ...bearer(key), 'idempotency-key': idempotencyKey } });
    await expect.poll(async () => (await finalize()).headers['idempotent-replayed'], { timeout: 3_000, interval: 100 }).toBe('true');
    expect((await finalize()).json()).toEqual({ data: { id: 'in_left', status: 'open' } });
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('answers 409 idempotency_key_reused for the same key with another body, or another path', async () => {
    const idempotencyKey = randomUUID();
    await createCustomer({ name: 'Ada' }, idempotencyKey);
    const otherBody = await createCustomer({ name: 'Grace' }, idempotencyKey);
    const otherPath = await fixture.gateway.app.inject({
      method: 'PATCH',
      url: '/api/v1/customers/cus_1',
      headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
      payload: { name: 'Ada' },
    });

    expect(otherBody.statusCode).toBe(409);
    expect(otherBody.json()).toMatchObject({ code: 'idempotency_key_reused' });
    expect(otherPath.statusCode).toBe(409);
    expect(otherPath.json().code).toBe('idempotency_key_reused');
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('scopes keys to the workspace: another workspace may use the same key for its own request', async () => {
    const idempotencyKey = randomUUID();
    const other = await fixture.gateway.createKey(['clients:write'], 'other-workspace');
    const mine = await createCustomer({ name: 'Ada' }, idempotencyKey);
    const theirs = await createCustomer({ name: 'Grace' }, idempotencyKey, other.key);

    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.headers['idempotent-replayed']).toBeUndefined();
    expect(forwardedWith(idempotencyKey)).toHaveLength(2);
  });

  it('does not record 5xx outcomes: the same key may be retried and reaches the service again', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 500, body: { code: 'internal' } }));
    const failed = await createCustomer({ name: 'Ada' }, idempotencyKey);
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_retry' } } }));
    const retried = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect(failed.statusCode).toBe(500);
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(forwardedWith(idempotencyKey)).toHaveLength(2);
  });

  it('does not record a 400: the client may correct the body and send it again under the same key', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 400, body: { code: 'invalid_request' } }));
    const refused = await createCustomer({ name: '' }, idempotencyKey);
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_corrected' } } }));
    const corrected = await createCustomer({ name: 'Ada' }, idempotencyKey);
    const replayed = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect([refused.statusCode, corrected.statusCode, replayed.statusCode]).toEqual([400, 201, 201]);
    expect(corrected.headers['idempotent-replayed']).toBeUndefined();
    expect(replayed.headers['idempotent-replayed']).toBe('true');
    expect(forwardedWith(idempotencyKey)).toHaveLength(2);
  });

  it('records a 404 from the service and replays it', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 404, body: { code: 'not_found' } }));
    const first = await createCustomer({ name: 'Ada' }, idempotencyKey);
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_later' } } }));
    const again = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect([first.statusCode, again.statusCode]).toEqual([404, 404]);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('frees the key when the service is down: the retry is tried again, not refused as in use', async () => {
    const createEndpoint = () =>
      fixture.gateway.app.inject({
        method: 'POST',
        url: '/api/v1/webhook_endpoints',
        headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': 'endpoint-1' },
        payload: { url: 'https://example.com/hook', enabled_events: ['*'] },
      });

    const first = await createEndpoint();
    const retry = await createEndpoint();

    expect(first.statusCode).toBe(503);
    expect(first.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(first.json().code).toBe('unavailable');
    expect(retry.statusCode).toBe(503);
  });

  it('answers 409 idempotency_key_in_use while the first request with the key still runs', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_slow' } }, delayMs: 400 }));
    const first = createCustomer({ name: 'Ada' }, idempotencyKey);
    await expect.poll(() => forwardedWith(idempotencyKey).length, { timeout: 2_000, interval: 10 }).toBe(1);
    const second = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect(second.statusCode).toBe(409);
    expect(second.json().code).toBe('idempotency_key_in_use');
    expect((await first).statusCode).toBe(201);
  });

  it('forwards exactly one of twenty concurrent requests with one key; the others replay it or get 409 in use', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_once' } }, delayMs: 150 }));
    const responses = await Promise.all(Array.from({ length: 20 }, () => createCustomer({ name: 'Ada' }, idempotencyKey)));

    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
    const original = responses.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined);
    const replayed = responses.filter((r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === 'true');
    const inUse = responses.filter((r) => r.statusCode === 409 && r.json().code === 'idempotency_key_in_use');
    expect(original).toHaveLength(1);
    expect(original.length + replayed.length + inUse.length).toBe(20);
    for (const response of replayed) expect(response.json()).toEqual({ data: { id: 'cus_once' } });
  });

  it('lets a retry take over a key whose first request was left in flight by a gateway that died', async () => {
    const idempotencyKey = randomUUID();
    const body = { name: 'Ada' };
    // What a crash leaves behind: the claim of a request that never finished, its lease over.
    const fingerprint = fingerprintOf('POST', '/api/v1/customers', body);
    await sql`insert into gateway.idempotency_records (id, workspace_id, key, fingerprint, state, lock_token, locked_until)
      values (${randomUUID()}, ${workspaceId}, ${idempotencyKey}, ${fingerprint}, 'in_flight', ${randomUUID()}, now() - interval '1 second')`.execute(
      fixture.gateway.orm.em.getKysely(),
    );

    const retried = await createCustomer(body, idempotencyKey);

    expect(retried.statusCode).toBe(201);
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });
});

describe('the lease of a key in flight', () => {
  const leaseOf = async (idempotencyKey: string) => {
    const { rows } = await sql<{ remaining_ms: string }>`select extract(epoch from locked_until - now()) * 1000 as remaining_ms
      from gateway.idempotency_records where key = ${idempotencyKey}`.execute(fixture.gateway.orm.em.getKysely());
    return Number(rows[0]?.remaining_ms);
  };

  it('is renewed while the service works on the request: long after its first lease a retry still gets 409 in use', async () => {
    const idempotencyKey = randomUUID();
    fixture.upstream.answerWith(() => ({ status: 201, body: { data: { id: 'cus_slower_than_a_lease' } }, delayMs: 3 * LEASE_MS }));
    const first = createCustomer({ name: 'Ada' }, idempotencyKey);
    await expect.poll(() => forwardedWith(idempotencyKey).length, { timeout: 2_000, interval: 10 }).toBe(1);

    await delay(2 * LEASE_MS);
    const remainingMs = await leaseOf(idempotencyKey);
    const retry = await createCustomer({ name: 'Ada' }, idempotencyKey);

    expect(remainingMs).toBeGreaterThan(0);
    expect(retry.statusCode).toBe(409);
    expect(retry.json().code).toBe('idempotency_key_in_use');
    expect((await first).statusCode).toBe(201);
    const replay = await createCustomer({ name: 'Ada' }, idempotencyKey);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(forwardedWith(idempotencyKey)).toHaveLength(1);
  });

  it('ends within 5 s (the default lease) once its gateway stops renewing it, as when that gateway died; a retry then takes the key over', { timeout: 20_000 }, async () => {
    const { IDEMPOTENCY_LEASE_MS: leaseMs } = loadConfig({ INTERNAL_TOKEN });
    const settings = { leaseMs, maxHoldMs: 60_000, ttlHours: 24 };
    const [dying, survivor] = [createIdempotencyService(fixture.gateway.orm, settings), createIdempotencyService(fixture.gateway.orm, settings)];
    const [idempotencyKey, fingerprint] = [randomUUID(), fingerprintOf('POST', '/api/v1/customers', { name: 'Ada' })];
    const retry = () => survivor.begin(workspaceId, idempotencyKey, fingerprint);

    expect((await dying.begin(workspaceId, idempotencyKey, fingerprint)).kind).toBe('claimed');
    await delay(leaseMs + 1_000);
    await expect(retry()).rejects.toMatchObject({ code: 'idempotency_key_in_use' });

    dying.close();
    const stoppedAt = Date.now();
    let taken: Awaited<ReturnType<typeof retry>> | undefined;
    while (taken === undefined && Date.now() - stoppedAt < leaseMs + 2_000) {
      taken = await retry().catch(() => delay(100).then(() => undefined));
    }
    const freedAfterMs = Date.now() - stoppedAt;

    expect(leaseMs).toBe(5_000);
    expect(taken?.kind).toBe('claimed');
    expect(freedAfterMs).toBeLessThanOrEqual(leaseMs + 250);
    if (taken?.kind === 'claimed') await survivor.release(taken.claim);
  });

  it('is released at once when the write is refused before it is forwarded: the same request gets the same answer, not 409 in use', async () => {
    const idempotencyKey = randomUUID();
    const traversal = () => fixture.gateway.app.inject({ method: 'POST', url: '/api/v1/invoices/in_1%2F..%2Fin_2/finalize', headers: { ...bearer(key), 'idempotency-key': idempotencyKey } });

    const first = await traversal();
    const again = await traversal();

    expect(first.statusCode).toBe(400);
    expect(again.statusCode).toBe(400);
    expect(forwardedWith(idempotencyKey)).toHaveLength(0);
  });
});

describe('purging idempotency records', () => {
  it('removes records past their time to live and keeps the recent ones', async () => {
    const sut = createIdempotencyService(fixture.gateway.orm, { leaseMs: 5_000, maxHoldMs: 60_000, ttlHours: 24 });
    const [old, recent] = [randomUUID(), randomUUID()];
    await createCustomer({ name: 'Old' }, old);
    await createCustomer({ name: 'Recent' }, recent);
    await sql`update gateway.idempotency_records set created_at = now() - interval '25 hours' where key = ${old}`.execute(fixture.gateway.orm.em.getKysely());

    expect(await sut.purgeExpired()).toBeGreaterThanOrEqual(1);

    const { rows } = await sql<{ key: string }>`select key from gateway.idempotency_records where key in (${old}, ${recent})`.execute(fixture.gateway.orm.em.getKysely());
    expect(rows.map((row) => row.key)).toEqual([recent]);
    // The purged key is free again: a new request with it is forwarded, not replayed.
    const reused = await createCustomer({ name: 'Another' }, old);
    expect(reused.headers['idempotent-replayed']).toBeUndefined();
  });
});
