import { AppError } from '@invoicing/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { isRecordable, replayableHeaders, type RecordedResponse } from '../idempotency/idempotency.domain.ts';
import type { Claim, IdempotencyService } from '../idempotency/idempotency.service.ts';
import { toUpstreamHeaders } from './upstream-headers.ts';
import type { Upstream } from './upstreams.ts';

// Hop-by-hop and framing headers: undici sets its own for the body it sends.
const NOT_FORWARDED = ['host', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'upgrade', 'te', 'trailer', 'expect'];

const fetchWhole = async (request: FastifyRequest, upstream: Upstream, path: string, internalToken: string): Promise<RecordedResponse> => {
  const headers = toUpstreamHeaders(request, { ...request.headers }, internalToken);
  for (const name of NOT_FORWARDED) delete headers[name];
  const body = request.body === undefined ? undefined : JSON.stringify(request.body);
  if (body !== undefined) headers['content-type'] = 'application/json';
  const response = await upstream.pool.request({ path, method: request.method as 'POST', headers, body });
  return {
    status: response.statusCode,
    headers: replayableHeaders(response.headers),
    body: Buffer.from(await response.body.arrayBuffer()),
  };
};

/**
 * Forwards a request that runs under an Idempotency-Key and records its outcome before answering.
 * The whole response is read first, so the outcome is kept even if the client has gone away.
 */
export const forwardRecorded = async (
  request: FastifyRequest,
  reply: FastifyReply,
  { upstream, path, claim, idempotency, internalToken }: { upstream: Upstream; path: string; claim: Claim; idempotency: IdempotencyService; internalToken: string },
): Promise<FastifyReply> => {
  let response: RecordedResponse;
  try {
    response = await fetchWhole(request, upstream, path, internalToken);
  } catch (error) {
    request.log.warn({ err: error, upstream: upstream.name }, 'upstream request failed');
    await idempotency.release(claim).catch((releaseError: unknown) => request.log.error({ err: releaseError }, 'could not release an idempotency key'));
    throw new AppError('unavailable', `The ${upstream.name} service is unavailable; retry later with the same Idempotency-Key.`);
  }
  try {
    await (isRecordable(response.status) ? idempotency.complete(claim, response) : idempotency.release(claim));
  } catch (error) {
    // The effect has happened: answer it. The key stays locked until its lease ends.
    request.log.error({ err: error }, 'could not record an idempotent outcome');
  }
  return reply.code(response.status).headers(response.headers).send(response.body);
};
