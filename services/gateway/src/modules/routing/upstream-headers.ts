import { injectTraceHeaders, INTERNAL_HEADERS } from '@invoicing/service-kit';
import type { FastifyRequest } from 'fastify';

type Headers = Record<string, string | string[] | undefined>;

const CLIENT_HEADERS_NEVER_FORWARDED = [
  // Services trust these only from the gateway: whatever a client sent is dropped, never merged.
  ...Object.values(INTERNAL_HEADERS),
  // The API key stays at the edge; services learn the caller from the headers below.
  'authorization',
];

/**
 * Rewrites a copy of the client's headers into what a service trusts: the internal token, the
 * caller's workspace and key, the request id and the Idempotency-Key, set by the gateway alone.
 */
export const toUpstreamHeaders = (request: FastifyRequest, headers: Headers, internalToken: string): Headers => {
  for (const name of CLIENT_HEADERS_NEVER_FORWARDED) delete headers[name];
  headers[INTERNAL_HEADERS.token] = internalToken;
  headers[INTERNAL_HEADERS.requestId] = request.id;
  const { principal, idempotency } = request;
  if (principal !== null) {
    headers[INTERNAL_HEADERS.workspaceId] = principal.workspaceId;
    headers[INTERNAL_HEADERS.apiKeyId] = principal.keyId;
  }
  if (idempotency !== null) headers[INTERNAL_HEADERS.idempotencyKey] = idempotency.key;
  injectTraceHeaders(headers);
  return headers;
};
