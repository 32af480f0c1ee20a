import { AppError } from '@invoicing/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Dispatcher } from 'undici';
import { isRecordable, replayableHeaders } from '../idempotency/idempotency.domain.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';
import { exchange, type UpstreamResponse } from './upstream-exchange.ts';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './upstream-headers.ts';
import type { Upstream } from './upstreams.ts';

// Bodies up to this size are read whole and sent in one write; larger ones (PDFs) are streamed.
const BUFFERED_BODY_MAX = 64 * 1024;

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

// A kept-alive connection the upstream closed just as it was reused: a read is safe to send again, once.
const isStaleConnection = (error: unknown) => (error as NodeJS.ErrnoException | null)?.code === 'UND_ERR_SOCKET';

export interface ForwarderOptions {
  internalToken: string;
  idempotency: IdempotencyService;
}

export type Forward = (request: FastifyRequest, reply: FastifyReply, upstream: Upstream) => Promise<FastifyReply>;

/**
 * The one way a request reaches a service: path and query unchanged, the client's headers made
 * into what a service trusts (upstream-headers.ts), a JSON body as the gateway parsed it. A service
 * that cannot be reached, or does not answer within the pool's timeouts, is 503 `unavailable`;
 * what a service answers is relayed as it is. A request under an Idempotency-Key has its whole
 * response read and recorded before it is answered, so the outcome is kept even when the client
 * has gone away; other responses are relayed whole when small and streamed when large.
 */
export const createForwarder = ({ internalToken, idempotency }: ForwarderOptions): Forward => {
  const send = async (request: FastifyRequest, upstream: Upstream, bufferMax: number): Promise<UpstreamResponse> => {
    const headers = upstreamRequestHeaders(request, internalToken);
    let body: string | undefined;
    if (request.body !== undefined) {
      body = JSON.stringify(request.body);
      headers['content-type'] = 'application/json';
    }
    const options: Dispatcher.DispatchOptions = { path: request.url, method: request.method as Dispatcher.HttpMethod, headers, body };
    try {
      return await exchange(upstream.pool, options, bufferMax);
    } catch (error) {
      if (!(isRead(request.method) && isStaleConnection(error))) throw error;
      return exchange(upstream.pool, options, bufferMax);
    }
  };

  const unavailable = (request: FastifyRequest, upstream: Upstream, error: unknown, detail: string): AppError => {
    request.log.warn({ err: error, upstream: upstream.name }, 'upstream request failed');
    return new AppError('unavailable', detail);
  };

  const forwardRecorded = async (request: FastifyRequest, reply: FastifyReply, upstream: Upstream): Promise<FastifyReply> => {
    const { claim } = request.idempotency!;
    let response: UpstreamResponse;
    try {
      response = await send(request, upstream, Infinity);
    } catch (error) {
      await idempotency.release(claim).catch((releaseError: unknown) => request.log.error({ err: releaseError }, 'could not release an idempotency key'));
      throw unavailable(request, upstream, error, `The ${upstream.name} service is unavailable; retry later with the same Idempotency-Key.`);
    }
    const recorded = { status: response.status, headers: replayableHeaders(response.headers), body: response.body as Buffer };
    try {
      await (isRecordable(recorded.status) ? idempotency.complete(claim, recorded) : idempotency.release(claim));
    } catch (error) {
      // The effect has happened: answer it. The key stays locked until its lease ends.
      request.log.error({ err: error }, 'could not record an idempotent outcome');
    }
    return reply.code(recorded.status).headers(recorded.headers).send(recorded.body);
  };

  const forwardRelayed = async (request: FastifyRequest, reply: FastifyReply, upstream: Upstream): Promise<FastifyReply> => {
    let response: UpstreamResponse;
    try {
      response = await send(request, upstream, BUFFERED_BODY_MAX);
    } catch (error) {
      throw unavailable(request, upstream, error, 'The service behind this route is unavailable; retry later.');
    }
    return reply.code(response.status).headers(downstreamResponseHeaders(response.headers)).send(response.body);
  };

  return (request, reply, upstream) => (request.idempotency === null ? forwardRelayed(request, reply, upstream) : forwardRecorded(request, reply, upstream));
};
