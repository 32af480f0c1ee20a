import type { Operation } from '@invoicing/contracts';
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
export const checkUpstreamReady = async (upstream: Upstream): Promise<void> => {
  let status: number;
  try {
    const response = await fetch(new URL('/readyz', upstream.url), { signal: AbortSignal.timeout(READINESS_TIMEOUT_MS) });
    await response.body?.cancel();
    status = response.status;
  } catch {
    throw new Error(`${upstream.name} does not answer`);
  }
  if (status < 200 || status >= 300) throw new Error(`${upstream.name} is not ready (${status})`);
};
