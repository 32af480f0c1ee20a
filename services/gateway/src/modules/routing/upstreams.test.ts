import { createServiceApp } from '@invoicing/service-kit';
import { Pool } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkUpstreamReady, type Upstream } from './upstreams.ts';

const TOKEN = 'gateway-upstream-test-token-0123456789';
const service = createServiceApp({ name: 'catalog', logger: false, internalToken: TOKEN, checkReadiness: async () => {} });
let upstream: Upstream;

beforeAll(async () => {
  await service.listen({ host: '127.0.0.1', port: 0 });
  const url = `http://127.0.0.1:${(service.server.address() as { port: number }).port}`;
  upstream = { name: 'catalog', url, pool: new Pool(url) };
});

afterAll(async () => {
  await upstream?.pool.close();
  await service.close();
});

describe('checkUpstreamReady', () => {
  it('finds a service ready that shares the gateway’s INTERNAL_TOKEN', async () => {
    await expect(checkUpstreamReady(upstream, TOKEN)).resolves.toBeUndefined();
  });

  it('names a service at the configured address that belongs to another platform (another token), which would answer every request 401', async () => {
    await expect(checkUpstreamReady(upstream, 'another-platform-token-0123456789abcdef')).rejects.toThrow(`catalog at ${upstream.url} does not share this gateway's INTERNAL_TOKEN`);
  });
});
