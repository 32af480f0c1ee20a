import type { onRequestHookHandler } from 'fastify';
import type { ActiveKey, ApiKeyCache } from './api-key.cache.ts';
import { authenticate, authenticateFromCache, authorize, type Requirement } from './authenticate.ts';
import type { KeyLookupBudget } from './key-lookup-budget.ts';

/**
 * The first hook of every route whose operation has a scope: authenticates the key and checks the
 * scope (and, for an operation of test mode only, that the key is a test key). A key the cache knows costs no promise; one it does not know is looked up in the database
 * unless its client address has sent too many bad keys lately, so a flood of made-up keys is
 * refused with 429 instead of becoming a flood of queries.
 */
export const authenticationHook =
  (keys: ApiKeyCache, lookups: KeyLookupBudget) =>
  (requirement: Requirement): onRequestHookHandler =>
    function authenticateRequest(request, _reply, done) {
      const admit = (key: ActiveKey) => {
        request.principal = key;
        request.log = request.log.child({ workspace_id: key.workspaceId, mode: key.mode });
        authorize(key, requirement);
      };
      let address: string;
      try {
        const cached = authenticateFromCache(request.headers.authorization, keys);
        if (cached !== undefined) {
          admit(cached);
          return done();
        }
        address = request.ip ?? '';
        lookups.assertLookupAllowed(address);
      } catch (error) {
        return done(error as Error);
      }
      authenticate(request.headers.authorization, keys)
        .then(admit, (error: unknown) => {
          lookups.recordFailure(address);
          throw error;
        })
        .then(() => done(), done);
      return undefined;
    };
