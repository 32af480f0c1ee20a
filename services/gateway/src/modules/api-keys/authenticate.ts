import type { Scope } from '@invoicing/contracts';
import { AppError, secretsMatch } from '@invoicing/service-kit';
import type { ActiveKey, ApiKeyCache } from './api-key.cache.ts';
import { hashApiKey, idSegmentOfKey } from './api-key.domain.ts';

const BEARER = /^Bearer +(\S+) *$/i;

const invalidKey = () => new AppError('unauthenticated', 'The API key is invalid or has been revoked.');

/**
 * The active key named by an `Authorization: Bearer <key>` header. Missing, malformed, unknown,
 * revoked and wrong keys are all 401; only the first two say more, since they reveal nothing.
 */
export const authenticate = async (authorization: string | undefined, keys: ApiKeyCache): Promise<ActiveKey> => {
  if (authorization === undefined || authorization === '') {
    throw new AppError('unauthenticated', 'Send an API key in the header Authorization: Bearer <key>.');
  }
  const token = BEARER.exec(authorization)?.[1];
  if (token === undefined) throw new AppError('unauthenticated', 'The Authorization header must be of the form Bearer <key>.');
  const segment = idSegmentOfKey(token);
  if (segment === undefined) throw invalidKey();
  const key = await keys.find(segment);
  // Constant-time comparison of hashes: timing reveals nothing about how much of a guess was right.
  if (key === undefined || !secretsMatch(hashApiKey(token), key.keyHash)) throw invalidKey();
  return key;
};

export const authorize = (key: ActiveKey, scope: Scope): void => {
  if (!key.scopes.has(scope)) throw new AppError('forbidden', `This API key lacks the scope ${scope} that this operation needs.`);
};
