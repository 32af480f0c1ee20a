import { injectTraceHeaders, INTERNAL_HEADERS } from '@invoicing/service-kit';
import type { FastifyRequest } from 'fastify';

type Headers = Record<string, string | string[] | undefined>;

// Hop-by-hop headers (RFC 9110, 7.6.1) describe one connection, never the next one.
const HOP_BY_HOP = ['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer'];

const NOT_FORWARDED_UPSTREAM = new Set([
  ...HOP_BY_HOP,
  // Services trust these only from the gateway: whatever a client sent is dropped, never merged.
  ...Object.values(INTERNAL_HEADERS),
  // The API key stays at the edge; services learn the caller from the internal headers.
  'authorization',
  // The upstream's own host; and the body is sent again as the gateway parsed it, so its framing is undici's.
  'host',
  'content-length',
  'expect',
]);

const NOT_RELAYED_DOWNSTREAM = new Set([
  ...HOP_BY_HOP,
  // The gateway's own request id answers every response, also when the service never saw the request.
  INTERNAL_HEADERS.requestId,
]);

/** Header names a client or service lists in `Connection`: hop-by-hop for this connection only. */
const connectionListed = (headers: Headers): string[] => {
  const listed = headers.connection;
  if (typeof listed !== 'string') return [];
  return listed.split(',').map((name) => name.trim().toLowerCase()).filter((name) => name !== '' && name !== 'close' && name !== 'keep-alive');
};

const copyExcept = (headers: Headers, skipped: ReadonlySet<string>): Headers => {
  const copy: Headers = {};
  for (const name in headers) {
    const value = headers[name];
    if (value !== undefined && !skipped.has(name)) copy[name] = value;
  }
  const { connection } = headers;
  // Nearly every client and service sends `keep-alive` (or `close`), which names no other header.
  if (connection !== undefined && connection !== 'keep-alive' && connection !== 'close') for (const name of connectionListed(headers)) delete copy[name];
  return copy;
};

/**
 * What a service receives: the client's headers (as the proxy passes them on), less the hop-by-hop
 * ones and any it may not set, plus the internal token, the caller's workspace and key, the request
 * id and the Idempotency-Key, set by the gateway alone. The workspace a service sees is the key's
 * data space: the workspace itself for a live key, its test space for a test key (data-space.ts),
 * so every service keeps the modes apart by the one filter it already has.
 */
export const upstreamRequestHeaders = (request: FastifyRequest, clientHeaders: Headers, internalToken: string): Headers => {
  const headers = copyExcept(clientHeaders, NOT_FORWARDED_UPSTREAM);
  headers[INTERNAL_HEADERS.token] = internalToken;
  headers[INTERNAL_HEADERS.requestId] = request.id;
  const { principal, idempotency } = request;
  if (principal !== null) {
    headers[INTERNAL_HEADERS.workspaceId] = principal.spaceId;
    headers[INTERNAL_HEADERS.apiKeyId] = principal.keyId;
  }
  if (idempotency !== null) headers[INTERNAL_HEADERS.idempotencyKey] = idempotency.key;
  injectTraceHeaders(headers);
  return headers;
};

/** What the client receives of a service's response headers: all but the hop-by-hop ones. */
export const downstreamResponseHeaders = (headers: Headers): Headers => copyExcept(headers, NOT_RELAYED_DOWNSTREAM);
