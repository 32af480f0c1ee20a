/**
 * JSON with object keys sorted at every depth (by UTF-16 code units) and no whitespace: one text
 * per value, whatever order its keys were written in. Keys whose value is undefined are left out,
 * as JSON.stringify leaves them out. The gateway's and the services' Idempotency-Key fingerprints
 * and billing's invoice hashes are all computed over it, so it must never change.
 */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, item]) => item !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, item]) => `${JSON.stringify(key)}:${canonicalJson(item)}`).join(',')}}`;
  }
  return JSON.stringify(value);
};
