import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startGateway, type GatewayFixture } from '../../testing/gateway-fixture.ts';
import { startUpstreamRecorder, type UpstreamRecorder } from '../../testing/upstream-recorder.ts';

const RATE_LIMIT_MAX = 3;
const PUBLIC_RATE_LIMIT_MAX = 2;
const BALANCER = '10.0.0.5';
const PAGE = '/i/0123456789abcdef0123456789abcdef';

let upstream: UpstreamRecorder;
/** Reached directly by its clients: TRUST_PROXY unset. */
let direct: GatewayFixture;
/** Behind one balancer: TRUST_PROXY=1. */
let behindOneHop: GatewayFixture;
/** Behind balancers of a listed range: TRUST_PROXY=10.0.0.0/8. */
let behindListedRange: GatewayFixture;

const startLimitedGateway = (env: Record<string, string> = {}) =>
  startGateway({
    env: {
      CATALOG_URL: upstream.url,
      DOCUMENTS_URL: upstream.url,
      RATE_LIMIT_MAX: String(RATE_LIMIT_MAX),
      PUBLIC_RATE_LIMIT_MAX: String(PUBLIC_RATE_LIMIT_MAX),
      RATE_LIMIT_WINDOW_MS: '60000',
      ...env,
    },
  });

beforeAll(async () => {
  upstream = await startUpstreamRecorder();
  [direct, behindOneHop, behindListedRange] = await Promise.all([
    startLimitedGateway(),
    startLimitedGateway({ TRUST_PROXY: '1' }),
    startLimitedGateway({ TRUST_PROXY: '10.0.0.0/8' }),
  ]);
});
afterAll(async () => {
  await Promise.all([direct?.close(), behindOneHop?.close(), behindListedRange?.close()]);
  await upstream?.close();
});

interface Origin {
  /** The address that connects to the gateway: the client's, or the balancer's. */
  remoteAddress: string;
  forwardedFor?: string;
}

const openPublicPage = (gateway: GatewayFixture, { remoteAddress, forwardedFor }: Origin, url = PAGE) =>
  gateway.app.inject({ method: 'GET', url, remoteAddress, headers: forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor } });

const listCustomers = (gateway: GatewayFixture, key: string, remoteAddress: string) =>
  gateway.app.inject({ method: 'GET', url: '/api/v1/customers', remoteAddress, headers: bearer(key) });

/** The statuses of the requests, made one after the other. */
const statusesOf = async (requests: Array<() => Promise<{ statusCode: number }>>) => {
  const statuses = [];
  for (const request of requests) statuses.push((await request()).statusCode);
  return statuses;
};

const times = <T>(count: number, make: () => T) => Array.from({ length: count }, make);

describe('public pages without TRUST_PROXY', () => {
  it('ignores X-Forwarded-For: one address sends under any claimed address from one budget', async () => {
    const client = '198.51.100.1';
    const statuses = await statusesOf(
      ['203.0.113.1', '203.0.113.2', '203.0.113.3'].map((claimed) => () => openPublicPage(direct, { remoteAddress: client, forwardedFor: claimed })),
    );
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('counts the public page and its PDF against the same budget', async () => {
    const client = '198.51.100.2';
    const statuses = await statusesOf([
      () => openPublicPage(direct, { remoteAddress: client }),
      () => openPublicPage(direct, { remoteAddress: client }, `${PAGE}/pdf`),
      () => openPublicPage(direct, { remoteAddress: client }, `${PAGE}/pdf`),
    ]);
    expect(statuses).toEqual([200, 200, 429]);
  });
});

describe('public pages behind a balancer', () => {
  it.each([
    ['a hop count (TRUST_PROXY=1)', () => behindOneHop],
    ["the balancer's range (TRUST_PROXY=10.0.0.0/8)", () => behindListedRange],
  ])('with %s, gives every forwarded client its own budget, and names that limit on the 429', async (_name, gateway) => {
    const first = { remoteAddress: BALANCER, forwardedFor: '203.0.113.10' };
    const second = { remoteAddress: BALANCER, forwardedFor: '203.0.113.11' };

    const statuses = await statusesOf(times(PUBLIC_RATE_LIMIT_MAX, () => () => openPublicPage(gateway(), first)));
    const refused = await openPublicPage(gateway(), first);

    expect(statuses).toEqual([200, 200]);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', detail: expect.stringMatching(/^Rate limit of 2 requests per 60 s for this client address exceeded/) });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await openPublicPage(gateway(), second)).statusCode).toBe(200);
  });

  it('with a hop count, believes only the address the balancer appended, not what the client prepended', async () => {
    const statuses = await statusesOf(
      ['192.0.2.1', '192.0.2.2', '192.0.2.3'].map((made) => () => openPublicPage(behindOneHop, { remoteAddress: BALANCER, forwardedFor: `${made}, 203.0.113.20` })),
    );
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('with a listed range, ignores X-Forwarded-For from an address outside it', async () => {
    const statuses = await statusesOf(
      ['203.0.113.31', '203.0.113.32', '203.0.113.33'].map((claimed) => () => openPublicPage(behindListedRange, { remoteAddress: '198.51.100.30', forwardedFor: claimed })),
    );
    expect(statuses).toEqual([200, 200, 429]);
  });

  it('counts an IPv6 client by its /64, which it usually holds whole', async () => {
    const statuses = await statusesOf(
      ['2001:db8:40:1::1', '2001:db8:40:1::2', '2001:db8:40:1:ffff::3'].map((client) => () => openPublicPage(behindOneHop, { remoteAddress: BALANCER, forwardedFor: client })),
    );
    expect(statuses).toEqual([200, 200, 429]);
    expect((await openPublicPage(behindOneHop, { remoteAddress: BALANCER, forwardedFor: '2001:db8:40:2::1' })).statusCode).toBe(200);
  });
});

describe('API keys', () => {
  it('answers 429 rate_limited with Retry-After once a key exceeds RATE_LIMIT_MAX, and counts each key apart', async () => {
    const busy = await direct.createKey(['clients:read']);
    const calm = await direct.createKey(['clients:read']);

    const statuses = await statusesOf(times(RATE_LIMIT_MAX, () => () => listCustomers(direct, busy.key, '198.51.100.40')));
    const refused = await listCustomers(direct, busy.key, '198.51.100.40');

    expect(statuses).toEqual([200, 200, 200]);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({
      code: 'rate_limited',
      detail: expect.stringMatching(/^Rate limit of 3 requests per 60 s for this API key exceeded/),
      request_id: refused.headers['x-request-id'],
    });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect((await listCustomers(direct, calm.key, '198.51.100.40')).statusCode).toBe(200);
  });

  it("keeps a key's whole budget after its address spent the public one", async () => {
    const address = '198.51.100.50';
    const { key } = await direct.createKey(['clients:read']);

    const publicStatuses = await statusesOf(times(PUBLIC_RATE_LIMIT_MAX + 1, () => () => openPublicPage(direct, { remoteAddress: address })));
    const keyStatuses = await statusesOf(times(RATE_LIMIT_MAX + 1, () => () => listCustomers(direct, key, address)));

    expect(publicStatuses).toEqual([200, 200, 429]);
    expect(keyStatuses).toEqual([200, 200, 200, 429]);
  });

  it("keeps an address's whole public budget after a key used from it spent its own", async () => {
    const address = '198.51.100.60';
    const { key } = await direct.createKey(['clients:read']);

    const keyStatuses = await statusesOf(times(RATE_LIMIT_MAX + 1, () => () => listCustomers(direct, key, address)));
    const publicStatuses = await statusesOf(times(PUBLIC_RATE_LIMIT_MAX + 1, () => () => openPublicPage(direct, { remoteAddress: address })));

    expect(keyStatuses).toEqual([200, 200, 200, 429]);
    expect(publicStatuses).toEqual([200, 200, 429]);
  });
});

it('never limits the probes', async () => {
  const statuses = await statusesOf(times(RATE_LIMIT_MAX + 2, () => () => direct.app.inject({ method: 'GET', url: '/healthz' })));
  expect(new Set(statuses)).toEqual(new Set([200]));
});

describe('made-up API keys', () => {
  /** A well-formed key whose id was never issued: each one is a database lookup unless held back. */
  const madeUpKey = (index: number) => `inv_live_${String(index).padStart(22, '1')}${'x'.repeat(43)}`;
  const madeUpKeys = (first: number, count: number) => Array.from({ length: count }, (_, index) => madeUpKey(first + index));

  it('after PUBLIC_RATE_LIMIT_MAX unknown keys from an address in a window, answers its further new keys 429 with Retry-After', async () => {
    const attacker = '198.51.100.60';
    const statuses = await statusesOf(madeUpKeys(0, PUBLIC_RATE_LIMIT_MAX + 2).map((key) => () => listCustomers(direct, key, attacker)));
    const refused = await listCustomers(direct, madeUpKey(99), attacker);

    expect(statuses).toEqual([401, 401, 429, 429]);
    expect(refused.statusCode).toBe(429);
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', detail: expect.stringContaining('unknown or revoked API keys') });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
  });

  it('still serves a key the gateway knows from that address, and keys from other addresses', async () => {
    const attacker = '198.51.100.61';
    const { key } = await direct.createKey(['clients:read']);
    // The key's own creation notice evicts it, and a lookup that overlaps the notice is not cached;
    // one made after the notice has surely arrived is.
    expect((await listCustomers(direct, key, '198.51.100.62')).statusCode).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await listCustomers(direct, key, '198.51.100.62')).statusCode).toBe(200);
    await statusesOf(madeUpKeys(100, PUBLIC_RATE_LIMIT_MAX).map((made) => () => listCustomers(direct, made, attacker)));

    expect((await listCustomers(direct, madeUpKey(200), attacker)).statusCode).toBe(429);
    expect((await listCustomers(direct, key, attacker)).statusCode).toBe(200);
    const { key: other } = await direct.createKey(['clients:read']);
    expect((await listCustomers(direct, other, '198.51.100.63')).statusCode).toBe(200);
  });
});
