import { hash, timingSafeEqual } from 'node:crypto';
import type { Scope } from '@invoicing/contracts';
import { AppError } from '@invoicing/service-kit';
import type { ActiveKey, ApiKeyCache } from './api-key.cache.ts';
import { idSegmentOfKey, modeOfKey } from './api-key.domain.ts';

const BEARER_PREFIX = 'Bearer ';
const BEARER = /^Bearer +(\S+) *$/i;

const invalidKey = () => new AppError('unauthenticated', 'The API key is invalid or has been revoked.');

const tokenOf = (authorization: string | undefined): string => {
  if (authorization === undefined || authorization === '') {
    throw new AppError('unauthenticated', 'Send an API key in the header Authorization: Bearer <key>.');
  }
  // The common spelling needs no regular expression; any other goes through the full grammar.
  const token = authorization.startsWith(BEARER_PREFIX) && !authorization.includes(' ', BEARER_PREFIX.length)
    ? authorization.slice(BEARER_PREFIX.length)
    : BEARER.exec(authorization)?.[1];
  if (!token) throw new AppError('unauthenticated', 'The Authorization header must be of the form Bearer <key>.');
  return token;
};

const verify = (token: string, key: ActiveKey | undefined): ActiveKey => {
  // The stored hash is compared in constant time: timing reveals nothing about how close a guess was.
  if (key === undefined || !timingSafeEqual(hash('sha256', token, 'buffer'), key.keyHash)) throw invalidKey();
  // A prefix that names the other mode is not this key, whatever the rest (a row edited by hand).
  if (modeOfKey(token) !== key.mode) throw invalidKey();
  return key;
};

const segmentOf = (token: string): string => {
  const segment = idSegmentOfKey(token);
  if (segment === undefined) throw invalidKey();
  return segment;
};

/**
 * The active key named by an `Authorization: Bearer <key>` header if the cache can tell without
 * the database, else `undefined` (then call `authenticate`). Missing, malformed, unknown, revoked
 * and wrong keys are all 401; only the first two say more, since they reveal nothing.
 */
export const authenticateFromCache = (authorization: string | undefined, keys: ApiKeyCache): ActiveKey | undefined => {
  const token = tokenOf(authorization);
  const entry = keys.cached(segmentOf(token));
  return entry === undefined ? undefined : verify(token, entry.key);
};

/** Like `authenticateFromCache`, loading the key from the database when the cache does not hold it. */
export const authenticate = async (authorization: string | undefined, keys: ApiKeyCache): Promise<ActiveKey> => {
  const token = tokenOf(authorization);
  return verify(token, await keys.find(segmentOf(token)));
};

/** What an operation demands of a key beyond being valid. */
export interface Requirement {
  scope: Scope;
  /** Only a test key may call it (test clocks). */
  testModeOnly?: boolean;
}

export const authorize = (key: ActiveKey, { scope, testModeOnly = false }: Requirement): void => {
  if (!key.scopes.has(scope)) throw new AppError('forbidden', `This API key lacks the scope ${scope} that this operation needs.`);
  if (testModeOnly && key.mode !== 'test') {
    throw new AppError('forbidden', 'This operation works in test mode only: test clocks need a test key (inv_test_…), not a live key.');
  }
};
