import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '@invoicing/contracts';
import type { Mode } from '@invoicing/service-kit/data-space';
import baseX from 'base-x';

/**
 * Key format: `inv_live_` (a test key: `inv_test_`) + 22 base62 characters of the key's id (its
 * UUID, not secret) + 43 base62 characters of 32 random bytes. The id lets the gateway find the
 * key's hash without scanning; the secret part alone carries the 256 bits an attacker would have
 * to guess. The prefix tells the mode at a glance; the stored mode decides (a mismatch is 401).
 */
export const API_KEY_PREFIXES = { live: 'inv_live_', test: 'inv_test_' } as const satisfies Record<Mode, string>;
export const API_KEY_PREFIX = API_KEY_PREFIXES.live;
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_CHARS = 22;
const SECRET_BYTES = 32;
const SECRET_CHARS = 43;
const KEY_LENGTH = API_KEY_PREFIX.length + ID_CHARS + SECRET_CHARS;
const ID_BYTES = 16;

// base-x writes each leading zero byte as one '0', then the digits of the number the bytes make;
// padded with '0' to the field's width, that is the number in base62, as keys have always been written.
const base62 = baseX(ALPHABET);

const encodeBase62 = (bytes: Uint8Array, width: number): string => base62.encode(bytes).padStart(width, '0');

/** The 16 bytes of the id a segment encodes, or undefined when it has a character outside base62 or its value needs more than 128 bits. */
const decodeId = (segment: string): Buffer | undefined => {
  const bytes = base62.decodeUnsafe(segment);
  if (bytes === undefined) return undefined;
  const firstNonZero = bytes.findIndex((byte) => byte !== 0);
  const significant = firstNonZero === -1 ? new Uint8Array() : bytes.subarray(firstNonZero);
  if (significant.length > ID_BYTES) return undefined;
  const id = Buffer.alloc(ID_BYTES);
  id.set(significant, ID_BYTES - significant.length);
  return id;
};

const uuidToBytes = (uuid: string): Buffer => Buffer.from(uuid.replaceAll('-', ''), 'hex');

const bytesToUuid = (bytes: Buffer): string => {
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/** The part of a key that names it: the cache is keyed by it, so a cached key is found without decoding. */
export const keyIdSegmentOf = (keyId: string): string => encodeBase62(uuidToBytes(keyId), ID_CHARS);

/** The mode a key's prefix names, or undefined when it has neither prefix. */
export const modeOfKey = (key: string): Mode | undefined =>
  key.startsWith(API_KEY_PREFIXES.live) ? 'live' : key.startsWith(API_KEY_PREFIXES.test) ? 'test' : undefined;

/**
 * The id segment of a well-formed key, or undefined. Only the shape is checked here; whether the key
 * exists, its secret matches and its stored mode is the one its prefix names is decided against the stored row.
 */
export const idSegmentOfKey = (key: string): string | undefined =>
  key.length === KEY_LENGTH && modeOfKey(key) !== undefined
    ? key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + ID_CHARS)
    : undefined;

/** The key id (dashed UUID) that an id segment encodes, or undefined when it encodes none. */
export const keyIdOfSegment = (segment: string): string | undefined => {
  const id = decodeId(segment);
  return id === undefined ? undefined : bytesToUuid(id);
};

/** SHA-256 of the whole key, hex: the only form in which a key is stored. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export interface MintedKey {
  key: string;
  keyHash: string;
}

/** A new secret key for the key id in a mode; the caller stores the hash and the mode and shows the key once. */
export const mintApiKey = (keyId: string, mode: Mode = 'live'): MintedKey => {
  const key = API_KEY_PREFIXES[mode] + keyIdSegmentOf(keyId) + encodeBase62(randomBytes(SECRET_BYTES), SECRET_CHARS);
  return { key, keyHash: hashApiKey(key) };
};

/** `live` or `test`; anything else is undefined. */
export const parseMode = (input: string): Mode | undefined => (input === 'live' || input === 'test' ? input : undefined);

export type ScopesInput = { ok: true; scopes: Scope[] } | { ok: false; unknown: string[] };

/** `all`, or a comma-separated list of scopes; unknown names are reported, never dropped silently. */
export const parseScopes = (input: string): ScopesInput => {
  if (input.trim() === 'all') return { ok: true, scopes: [...SCOPES] };
  const names = [...new Set(input.split(',').map((name) => name.trim()).filter(Boolean))];
  const unknown = names.filter((name) => !(SCOPES as readonly string[]).includes(name));
  if (names.length === 0) return { ok: false, unknown: [input] };
  if (unknown.length > 0) return { ok: false, unknown };
  return { ok: true, scopes: names as Scope[] };
};
