import type { Operation } from '@invoicing/contracts';
import { AppError, sendProblem } from '@invoicing/service-kit';
import httpProxy, { type FastifyHttpProxyOptions } from '@fastify/http-proxy';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { IdempotencyService } from '../idempotency/idempotency.service.ts';
import { forwardRecorded } from './forward-recorded.ts';
import { toUpstreamHeaders } from './upstream-headers.ts';
import type { Upstream, UpstreamName } from './upstreams.ts';

export interface ProxyRoutesOptions {
  operations: readonly Operation[];
  upstreams: ReadonlyMap<UpstreamName, Upstream>;
  idempotency: IdempotencyService;
  internalToken: string;
}

/** Methods per path of each upstream's operations: one proxy route per path, only those methods. */
const routesOf = (operations: readonly Operation[]) => {
  const routes = new Map<string, { service: UpstreamName; path: string; methods: string[] }>();
  for (const { service, path, method } of operations) {
    if (service === 'gateway') continue;
    const id = `${service} ${path}`;
    const route = routes.get(id) ?? { service, path, methods: [] };
    route.methods.push(method);
    routes.set(id, route);
  }
  return [...routes.values()];
};

const isIdempotentRead = (method: string) => method === 'GET' || method === 'HEAD';

// Bodies up to this size are read whole and sent in one write; larger ones (PDFs) are streamed.
const BUFFERED_BODY_MAX = 64 * 1024;

/**
 * Serves every upstream operation by proxying it, unchanged in path, to the service that owns it.
 * Requests under an Idempotency-Key are forwarded and recorded; the rest are relayed as they come.
 */
export const registerProxyRoutes = async (app: FastifyInstance, { operations, upstreams, idempotency, internalToken }: ProxyRoutesOptions) => {
  const unavailable = (reply: FastifyReply, error: Error) => {
    reply.request.log.warn({ err: error }, 'upstream request failed');
    sendProblem(reply, new AppError('unavailable', 'The service behind this route is unavailable; retry later.'));
  };
  const replyOptions: FastifyHttpProxyOptions['replyOptions'] = {
    rewriteRequestHeaders: (request, headers) => toUpstreamHeaders(request as FastifyRequest, headers, internalToken),
    onError: (reply, { error }) => unavailable(reply as FastifyReply, error),
    onResponse: (_request, reply, response) => {
      const length = Number(reply.getHeader('content-length'));
      if (!(length <= BUFFERED_BODY_MAX)) return void reply.send(response.stream);
      const chunks: Buffer[] = [];
      response.stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.stream.once('error', (error) => unavailable(reply as FastifyReply, error));
      response.stream.once('end', () => reply.send(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks)));
    },
    // A kept-alive connection the upstream closed as we reused it: a read is safe to send again, once.
    retryDelay: ({ err, req, attempt }) =>
      attempt === 0 && (err as NodeJS.ErrnoException | null)?.code === 'UND_ERR_SOCKET' && isIdempotentRead(req.method) ? 1 : null,
  };

  for (const { service, path, methods } of routesOf(operations)) {
    const upstream = upstreams.get(service);
    if (!upstream) throw new Error(`No upstream for service ${service}`);
    await app.register(httpProxy, {
      upstream: upstream.url,
      undici: upstream.pool,
      routes: [path],
      httpMethods: methods,
      // The gateway parses JSON bodies itself (content type, size, fingerprint) instead of streaming them.
      proxyPayloads: false,
      disableRequestLogging: true,
      replyOptions,
      handler: (request, reply, dest, options) =>
        request.idempotency === null
          ? reply.from(dest, options)
          : forwardRecorded(request, reply, { upstream, path: dest, claim: request.idempotency.claim, idempotency, internalToken }),
    });
  }
};
