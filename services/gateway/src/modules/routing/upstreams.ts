import type { Operation } from '@invoicing/contracts';
import { INTERNAL_HEADERS } from '@invoicing/service-kit';
import { Pool } from 'undici';
import type { GatewayConfig, UpstreamName } from '../../config.ts';

export type { UpstreamName };

export interface Upstream {
  name: UpstreamName;
  url: string;
  /** Keep-alive connections reused across requests: a new TCP connection per request would halve throughput. */
  pool: Pool;
}

const CONNECT_TIMEOUT_MS = 5_000;
const READINESS_TIMEOUT_MS = 2_000;

/** One pool per service that owns at least one operation of the table. */
export const createUpstreams = (config: GatewayConfig, operations: readonly Operation[]): Map<UpstreamName, Upstream> => {
  const upstreams = new Map<UpstreamName, Upstream>();
  for (const { service } of operations) {
    if (service === 'gateway' || upstreams.has(service)) continue;
    const url = config.upstreamUrls[service];
    const pool = new Pool(new URL(url).origin, {
      connections: 128,
      pipelining: 1,
      keepAliveTimeout: 60_000,
      keepAliveMaxTimeout: 60_000,
      headersTimeout: config.UPSTREAM_TIMEOUT_MS,
      bodyTimeout: config.UPSTREAM_TIMEOUT_MS,
      connect: { timeout: CONNECT_TIMEOUT_MS },
    });
    upstreams.set(service, { name: service, url, pool });
  }
  return upstreams;
};

/** Throws unless the upstream's own readiness probe answers 2xx in time. */
export const checkUpstreamReady = async (upstream: Upstream, internalToken: string): Promise<void> => {
  let status: number;
  try {
    // With the shared token: a service of another platform (another INTERNAL_TOKEN) answers 401.
    const response = await fetch(new URL('/readyz', upstream.url), { headers: { [INTERNAL_HEADERS.token]: internalToken }, signal: AbortSignal.timeout(READINESS_TIMEOUT_MS) });
    await response.body?.cancel();
    status = response.status;
  } catch {
    throw new Error(`${upstream.name} does not answer`);
  }
  if (status === 401) throw new Error(`${upstream.name} at ${upstream.url} does not share this gateway's INTERNAL_TOKEN`);
  if (status < 200 || status >= 300) throw new Error(`${upstream.name} is not ready (${status})`);
};
