import { createHash, randomBytes } from 'node:crypto';
import { SCOPES, type Scope } from '@invoicing/contracts';

/**
 * Key format: `inv_live_` + 22 base62 characters of the key's id (its UUID, not secret) + 43 base62
 * characters of 32 random bytes. The id lets the gateway find the key's hash without scanning;
 * the secret part alone carries the 256 bits an attacker would have to guess.
 */
export const API_KEY_PREFIX = 'inv_live_';
const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_CHARS = 22;
const SECRET_BYTES = 32;
const SECRET_CHARS = 43;
const KEY_LENGTH = API_KEY_PREFIX.length + ID_CHARS + SECRET_CHARS;
const MAX_ID = 1n << 128n;

const DIGIT_VALUE = new Map([...ALPHABET].map((char, index) => [char, BigInt(index)]));

const encodeBase62 = (bytes: Uint8Array, width: number): string => {
  let value = BigInt(`0x${Buffer.from(bytes).toString('hex') || '0'}`);
  let text = '';
  while (value > 0n) {
    text = ALPHABET[Number(value % 62n)] + text;
    value /= 62n;
  }
  return text.padStart(width, '0');
};

const decodeBase62 = (text: string): bigint | undefined => {
  let value = 0n;
  for (const char of text) {
    const digit = DIGIT_VALUE.get(char);
    if (digit === undefined) return undefined;
    value = value * 62n + digit;
  }
  return value;
};

const uuidToBytes = (uuid: string): Buffer => Buffer.from(uuid.replaceAll('-', ''), 'hex');

const hexToUuid = (hex: string): string =>
  `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;

/** The part of a key that names it: the cache is keyed by it, so a cached key is found without decoding. */
export const keyIdSegmentOf = (keyId: string): string => encodeBase62(uuidToBytes(keyId), ID_CHARS);

/**
 * The id segment of a well-formed key, or undefined. Only the shape is checked here; whether the key
 * exists and its secret matches is decided against the stored hash.
 */
export const idSegmentOfKey = (key: string): string | undefined =>
  key.length === KEY_LENGTH && key.startsWith(API_KEY_PREFIX)
    ? key.slice(API_KEY_PREFIX.length, API_KEY_PREFIX.length + ID_CHARS)
    : undefined;

/** The key id (dashed UUID) that an id segment encodes, or undefined when it encodes none. */
export const keyIdOfSegment = (segment: string): string | undefined => {
  const value = decodeBase62(segment);
  if (value === undefined || value >= MAX_ID) return undefined;
  return hexToUuid(value.toString(16).padStart(32, '0'));
};

/** SHA-256 of the whole key, hex: the only form in which a key is stored. */
export const hashApiKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export interface MintedKey {
  key: string;
  keyHash: string;
}

/** A new secret key for the key id; the caller stores the hash and shows the key once. */
export const mintApiKey = (keyId: string): MintedKey => {
  const key = API_KEY_PREFIX + keyIdSegmentOf(keyId) + encodeBase62(randomBytes(SECRET_BYTES), SECRET_CHARS);
  return { key, keyHash: hashApiKey(key) };
};

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
