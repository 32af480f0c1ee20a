import type { Operation } from '@invoicing/contracts';
import type { FastifyInstance, RouteHandlerMethod } from 'fastify';
import type { Forward } from './forwarder.ts';
import { routeHooksOf, type RouteGuards } from './route-hooks.ts';
import type { Upstream, UpstreamName } from './upstreams.ts';

export interface OperationRoutesOptions {
  operations: readonly Operation[];
  upstreams: ReadonlyMap<UpstreamName, Upstream>;
  guards: RouteGuards;
  forward: Forward;
  /** Handlers of the operations the gateway serves itself, by operationId. */
  ownHandlers: Readonly<Record<string, RouteHandlerMethod>>;
}

/**
 * One route per operation of the contract table, with the hooks its entry declares
 * (route-hooks.ts): the gateway's own operations answered here, every other forwarded, path
 * unchanged, to the service that owns it. A GET route answers HEAD as well, with the same hooks.
 */
export const registerOperationRoutes = (app: FastifyInstance, { operations, upstreams, guards, forward, ownHandlers }: OperationRoutesOptions): void => {
  for (const operation of operations) {
    let handler: RouteHandlerMethod;
    if (operation.service === 'gateway') {
      const own = ownHandlers[operation.operationId];
      if (!own) throw new Error(`The gateway has no handler for ${operation.operationId}`);
      handler = own;
    } else {
      const upstream = upstreams.get(operation.service);
      if (!upstream) throw new Error(`No upstream for service ${operation.service}`);
      handler = (request, reply) => forward(request, reply, upstream);
    }
    app.route({ method: operation.method, url: operation.path, ...routeHooksOf(operation, guards), handler });
  }
};
