import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bearer, startGateway, type GatewayFixture } from '../../testing/gateway-fixture.ts';
import { startUpstreamRecorder, type UpstreamRecorder } from '../../testing/upstream-recorder.ts';

// E-mail sends count against their workspace's budget, all its keys together, besides each key's own.
describe('send rate limit per workspace', () => {
  let upstream: UpstreamRecorder;
  let gateway: GatewayFixture;

  beforeAll(async () => {
    upstream = await startUpstreamRecorder();
    gateway = await startGateway({ env: { CATALOG_URL: upstream.url, BILLING_URL: upstream.url, DOCUMENTS_URL: upstream.url, SEND_RATE_LIMIT_MAX: '3', RATE_LIMIT_MAX: '1000' } });
  });
  afterAll(async () => {
    await gateway?.close();
    await upstream?.close();
  });

  const sendWith = (key: string, index: number) =>
    gateway.app.inject({
      method: 'POST',
      url: '/api/v1/invoices/in_0190f3e2c1b27a8e9d1f3c4b5a697887/send',
      headers: { ...bearer(key), 'content-type': 'application/json', 'idempotency-key': `send-${key.slice(-6)}-${index}` },
      payload: '{}',
    });

  it('refuses the fourth send of a workspace with 429 whichever of its keys asks, leaves other workspaces and other routes alone', async () => {
    const first = await gateway.createKey(['invoices:send', 'invoices:read'], 'mailer');
    const second = await gateway.createKey(['invoices:send'], 'mailer');
    const other = await gateway.createKey(['invoices:send'], 'other-workspace');
    const statuses = [];
    for (const [index, key] of [first.key, second.key, first.key, second.key].entries()) statuses.push((await sendWith(key, index)).statusCode);
    expect(statuses.slice(0, 3).every((status) => status !== 429)).toBe(true);
    expect(statuses[3]).toBe(429);
    const refused = await sendWith(first.key, 9);
    expect(refused.json()).toMatchObject({ code: 'rate_limited', status: 429 });
    expect((await sendWith(other.key, 0)).statusCode).not.toBe(429);
    const read = await gateway.app.inject({ method: 'GET', url: '/api/v1/invoices', headers: bearer(first.key) });
    expect(read.statusCode).not.toBe(429);
  });
});
