import httpProxy from '@fastify/http-proxy';
import type { Operation } from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit';
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Forwarder } from './forwarder.ts';
import { routeHooksOf, type RouteGuards } from './route-hooks.ts';
import type { Upstream, UpstreamName } from './upstreams.ts';

/**
 * An operation whose body is not JSON (a bank statement, `application/xml`) takes that media type
 * only, as text, up to its own limit, in its route's scope; every other route keeps JSON and 1 MiB.
 * The text goes up to the service as it came.
 */
const acceptTextBody = (scope: FastifyInstance, contentType: string, bodyLimit: number | undefined): void => {
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser(contentType, { parseAs: 'string', ...(bodyLimit ? { bodyLimit } : {}) }, (_request, body, done) => done(null, body));
  scope.addContentTypeParser('*', (_request, _payload, done) => done(invalidRequest(`This operation takes a body sent with Content-Type: ${contentType}.`)));
};

export interface OperationRoutesOptions {
  operations: readonly Operation[];
  upstreams: ReadonlyMap<UpstreamName, Upstream>;
  guards: RouteGuards;
  forwarder: Forwarder;
  /** Handlers of the operations the gateway serves itself, by operationId. */
  ownHandlers: Readonly<Record<string, RouteHandlerMethod>>;
}

/**
 * One route per operation of the contract table, with the hooks its entry declares
 * (route-hooks.ts): the gateway's own operations answered here, every other forwarded, path
 * unchanged, to the service that owns it by `@fastify/http-proxy`, registered for that one method
 * and path in a scope of its own that carries the operation's hooks. A GET route answers HEAD as
 * well, with the same hooks.
 */
export const registerOperationRoutes = async (app: FastifyInstance, { operations, upstreams, guards, forwarder, ownHandlers }: OperationRoutesOptions): Promise<void> => {
  for (const operation of operations) {
    const { onRequest, preHandler, onSend } = routeHooksOf(operation, guards);
    if (operation.service === 'gateway') {
      const handler = ownHandlers[operation.operationId];
      if (!handler) throw new Error(`The gateway has no handler for ${operation.operationId}`);
      app.route({ method: operation.method, url: operation.path, onRequest, preHandler, onSend, handler });
      continue;
    }
    const upstream = upstreams.get(operation.service);
    if (!upstream) throw new Error(`No upstream for service ${operation.service}`);
    await app.register(async (scope) => {
      if (operation.bodyContentType) acceptTextBody(scope, operation.bodyContentType, operation.bodyLimitBytes);
      // A JSON body larger than 1 MiB (a supporting document in base64): the proxy's route takes no
      // body limit of its own, so it is set on the route as the plugin registers it.
      else if (operation.bodyLimitBytes) {
        const bodyLimit = operation.bodyLimitBytes;
        scope.addHook('onRoute', (route) => {
          route.bodyLimit = bodyLimit;
        });
      }
      for (const hook of onRequest) scope.addHook('onRequest', hook);
      for (const hook of preHandler) scope.addHook('preHandler', hook);
      for (const hook of onSend) scope.addHook('onSend', hook);
      await scope.register(httpProxy, { ...forwarder(upstream), routes: [operation.path], httpMethods: [operation.method] });
    });
  }
};
