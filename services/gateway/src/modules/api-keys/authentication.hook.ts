import type { onRequestHookHandler } from 'fastify';
import type { RouteOperations } from '../routing/operation-table.ts';
import type { ActiveKey, ApiKeyCache } from './api-key.cache.ts';
import { authenticate, authorize } from './authenticate.ts';

/**
 * The first hook of every public route: names the operation, then authenticates and authorizes
 * the key when the operation has a scope. Written with `done` so that a cached key costs no promise.
 */
export const authenticationHook = (served: RouteOperations, keys: ApiKeyCache): onRequestHookHandler =>
  function authenticateRequest(request, _reply, done) {
    const operation = served[request.method];
    if (operation === undefined) return done();
    request.operation = operation;
    const { scope } = operation;
    if (scope === null) return done();
    const admit = (key: ActiveKey) => {
      request.principal = key;
      request.log = request.log.child({ workspace_id: key.workspaceId });
      authorize(key, scope);
    };
    try {
      const key = authenticate(request.headers.authorization, keys);
      if (key instanceof Promise) {
        key.then(admit).then(() => done(), done);
        return undefined;
      }
      admit(key);
    } catch (error) {
      return done(error as Error);
    }
    return done();
  };
