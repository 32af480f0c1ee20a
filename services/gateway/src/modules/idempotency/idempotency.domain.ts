import type { Idempotency } from '@invoicing/contracts';
import { AppError } from '@invoicing/service-kit/app-error';

// One rule for the gateway's record and the services' record of the same request.
export { canonicalJson } from '@invoicing/service-kit/canonical-json';
export { fingerprintOf, isRecordable, REPLAYED_HEADER } from '@invoicing/service-kit/request-fingerprint';

export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

/** A response as recorded for replay. */
export interface RecordedResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/**
 * The Idempotency-Key of a request to an operation with this rule, or undefined when there is
 * none to honour. Reads ignore the header; a write that requires one gets 428 without it.
 */
export const idempotencyKeyOf = (header: string | string[] | undefined, rule: Idempotency): string | undefined => {
  if (rule === 'none') return undefined;
  if (header === undefined) {
    if (rule === 'required') {
      throw new AppError('idempotency_key_required', 'This operation requires an Idempotency-Key header (a UUID is recommended).');
    }
    return undefined;
  }
  if (typeof header !== 'string' || header.length === 0 || header.length > IDEMPOTENCY_KEY_MAX_LENGTH) {
    throw new AppError('invalid_request', `The Idempotency-Key header must be one value of 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters.`, {
      errors: [{ path: 'Idempotency-Key', message: `must be 1 to ${IDEMPOTENCY_KEY_MAX_LENGTH} characters` }],
    });
  }
  return header;
};

// Per-connection, per-response or per-request headers: a replay carries its own.
const NOT_REPLAYED = new Set([
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'trailer',
  'te',
  'content-length',
  'date',
  'x-request-id',
  'x-ratelimit-limit',
  'x-ratelimit-remaining',
  'x-ratelimit-reset',
  'retry-after',
]);

/** The headers of an upstream response that a replay repeats. */
export const replayableHeaders = (headers: Record<string, string | string[] | undefined>): Record<string, string | string[]> => {
  const kept: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !NOT_REPLAYED.has(name)) kept[name] = value;
  }
  return kept;
};
