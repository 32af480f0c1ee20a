import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.ts';

/**
 * What makes two requests under one Idempotency-Key "the same request": method, path with query,
 * and body as sent (before defaults are applied). The gateway and the services compute it alike.
 */
export const fingerprintOf = (method: string, url: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${url}\n${body === undefined ? '' : canonicalJson(body)}`)
    .digest('hex');

/** Set on a response that replays the recorded outcome of an earlier request with the same key. */
export const REPLAYED_HEADER = 'idempotent-replayed';

/**
 * Which outcomes a key keeps. Not 5xx: the request may be retried with the same key. Not 400
 * either: the request was refused as invalid and changed nothing, so, as with Stripe, the client
 * may correct the body and send it again under the same key. Every other outcome (404, 409
 * invalid_state, ...) came from the operation itself and is replayed.
 */
export const isRecordable = (status: number): boolean => status !== 400 && status < 500;
