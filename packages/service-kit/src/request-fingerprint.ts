import { createHash } from 'node:crypto';

/** JSON with the keys of every object sorted, so that key order never changes a fingerprint. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson((value as Record<string, unknown>)[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value);
};

/**
 * What makes two requests under one Idempotency-Key "the same request": method, path with query,
 * and body as sent (before defaults are applied). The gateway and the services compute it alike.
 */
export const fingerprintOf = (method: string, url: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${url}\n${body === undefined ? '' : canonicalJson(body)}`)
    .digest('hex');
