import type { FastifyHttpProxyOptions } from '@fastify/http-proxy';
import { AppError } from '@invoicing/service-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Readable } from 'node:stream';
import { isRecordable, replayableHeaders } from '../idempotency/idempotency.domain.ts';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';
import { upstreamClientOf, WholeBody } from './upstream-client.ts';
import { downstreamResponseHeaders, upstreamRequestHeaders } from './upstream-headers.ts';
import type { Upstream } from './upstreams.ts';

type ReplyOptions = NonNullable<FastifyHttpProxyOptions['replyOptions']>;
/** What reply-from hands `onResponse` (its types call it a ServerResponse; at run time it is this). */
interface UpstreamResponse {
  statusCode: number;
  headers: Record<string, string | string[] | undefined>;
  stream: Readable;
}
type ProxyOptions = Pick<
  FastifyHttpProxyOptions,
  'upstream' | 'undici' | 'proxyPayloads' | 'disableRequestLogging' | 'internalRewriteLocationHeader' | 'replyOptions'
>;

const isRead = (method: string) => method === 'GET' || method === 'HEAD';

/** The whole body: at once when the upstream client gathered it, else read to its end. */
const readWhole = (stream: Readable): Promise<Buffer> =>
  stream instanceof WholeBody
    ? Promise.resolve(stream.bytes)
    : new Promise((resolve, reject) => {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.once('error', reject);
        stream.once('end', () => resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      });

export interface ForwarderOptions {
  internalToken: string;
  idempotency: IdempotencyService;
}

/** The options of `@fastify/http-proxy` that forward a route to a service. */
export type Forwarder = (upstream: Upstream) => ProxyOptions;

/**
 * The one way a request reaches a service: `@fastify/http-proxy` on the service's keep-alive undici
 * pool, path and query unchanged, the client's headers made into what a service trusts
 * (upstream-headers.ts), a JSON body as the gateway parsed it. A service that cannot be reached, or
 * does not answer within the pool's timeouts, is 503 `unavailable`; what a service answers is
 * relayed as it is. A request under an Idempotency-Key has its whole response read and recorded
 * before it is answered, so the outcome is kept even when the client has gone away; other
 * responses are relayed whole when small and streamed when large.
 */
export const createForwarder = ({ internalToken, idempotency }: ForwarderOptions): Forwarder => {
  const unavailable = (request: FastifyRequest, keyedDetail: string) =>
    new AppError('unavailable', request.idempotency === null ? 'The service behind this route is unavailable; retry later.' : keyedDetail);

  /** Answers a 503 in place of an answer whose body could not be read, without the headers copied from it. */
  const sendUnavailable = (reply: FastifyReply, response: UpstreamResponse, error: unknown, keyedDetail: string) => {
    reply.request.log.warn({ err: error }, 'upstream response failed');
    for (const name of Object.keys(downstreamResponseHeaders(response.headers))) reply.removeHeader(name);
    reply.send(unavailable(reply.request, keyedDetail));
  };

  const releaseKey = (request: FastifyRequest) =>
    idempotency.release(request.idempotency!.claim).catch((error: unknown) => request.log.error({ err: error }, 'could not release an idempotency key'));

  const recordThenSend = async (request: FastifyRequest, reply: FastifyReply, response: UpstreamResponse, retryDetail: string) => {
    const { claim } = request.idempotency!;
    let body: Buffer;
    try {
      body = await readWhole(response.stream);
    } catch (error) {
      await releaseKey(request);
      return sendUnavailable(reply, response, error, retryDetail);
    }
    const status = response.statusCode;
    try {
      await (isRecordable(status) ? idempotency.complete(claim, { status, headers: replayableHeaders(response.headers), body }) : idempotency.release(claim));
    } catch (error) {
      // The effect has happened: answer it. The key stays locked until its lease ends.
      request.log.error({ err: error }, 'could not record an idempotent outcome');
    }
    reply.send(body);
  };

  return (upstream) => {
    const retryDetail = `The ${upstream.name} service is unavailable; retry later with the same Idempotency-Key.`;
    const replyOptions: ReplyOptions = {
      rewriteRequestHeaders: (request, headers) => upstreamRequestHeaders(request as FastifyRequest, headers, internalToken),
      rewriteHeaders: (headers) => downstreamResponseHeaders(headers),
      onResponse: (request, reply, raw) => {
        const response = raw as unknown as UpstreamResponse;
        if ((request as FastifyRequest).idempotency !== null) return void recordThenSend(request as FastifyRequest, reply as FastifyReply, response, retryDetail);
        // A small body comes whole and goes in one write; a long one, or one without a length, streams.
        reply.send(response.stream instanceof WholeBody ? response.stream.bytes : response.stream);
      },
      // The service could not be reached or did not answer in time (reply-from has logged why).
      onError: (reply) => {
        const request = reply.request as FastifyRequest;
        if (request.idempotency === null) return void reply.send(unavailable(request, retryDetail));
        void releaseKey(request).then(() => reply.send(unavailable(request, retryDetail)));
      },
      // A kept-alive connection the service closed just as it was reused: a read is safe to send again, once.
      retryDelay: ({ err, req, attempt }) =>
        attempt === 0 && (err as NodeJS.ErrnoException | null)?.code === 'UND_ERR_SOCKET' && isRead((req as unknown as { method: string }).method) ? 1 : null,
    };
    return {
      upstream: upstream.url,
      undici: upstreamClientOf(upstream.pool) as unknown as FastifyHttpProxyOptions['undici'],
      // The gateway parses JSON bodies itself (content type, size, fingerprint); the plugin sends them as parsed.
      proxyPayloads: false,
      disableRequestLogging: true,
      // Paths go up unchanged, so the service's Location headers come down unchanged.
      internalRewriteLocationHeader: false,
      replyOptions,
    };
  };
};
