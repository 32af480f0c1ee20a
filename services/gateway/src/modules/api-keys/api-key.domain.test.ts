import { SCOPES } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit';
import { describe, expect, it } from 'vitest';
import { API_KEY_PREFIX, hashApiKey, idSegmentOfKey, keyIdOfSegment, keyIdSegmentOf, mintApiKey, modeOfKey, parseMode, parseScopes } from './api-key.domain.ts';

describe('API key format', () => {
  it('mints inv_live_ keys in base62 that carry their key id and only hash to the stored hash', () => {
    const keyId = newId();
    const sut = mintApiKey(keyId);

    expect(sut.key).toMatch(/^inv_live_[0-9A-Za-z]{65}$/);
    expect(keyIdOfSegment(idSegmentOfKey(sut.key)!)).toBe(keyId);
    expect(sut.keyHash).toBe(hashApiKey(sut.key));
    expect(sut.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(sut.keyHash).not.toContain(sut.key.slice(API_KEY_PREFIX.length));
  });

  it('mints inv_test_ keys of the same shape for test mode, whose prefix names their mode', () => {
    const keyId = newId();
    const sut = mintApiKey(keyId, 'test');

    expect(sut.key).toMatch(/^inv_test_[0-9A-Za-z]{65}$/);
    expect(keyIdOfSegment(idSegmentOfKey(sut.key)!)).toBe(keyId);
    expect(modeOfKey(sut.key)).toBe('test');
    expect(modeOfKey(mintApiKey(keyId).key)).toBe('live');
    expect(modeOfKey(`sk_test_${'a'.repeat(65)}`)).toBeUndefined();
  });

  it.each([
    ['live', 'live'],
    ['test', 'test'],
    ['LIVE', undefined],
    ['sandbox', undefined],
    ['', undefined],
  ])('reads the mode %j as %j', (input, mode) => {
    expect(parseMode(input)).toBe(mode);
  });

  it('never mints the same secret twice for one key id', () => {
    const keyId = newId();
    const keys = new Set(Array.from({ length: 50 }, () => mintApiKey(keyId).key));
    expect(keys.size).toBe(50);
  });

  it.each([
    ['the smallest id', '00000000-0000-0000-0000-000000000000'],
    ['the largest id', 'ffffffff-ffff-ffff-ffff-ffffffffffff'],
    ['a UUIDv7', '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887'],
  ])('round-trips %s through its 22-character segment', (_name, keyId) => {
    const segment = keyIdSegmentOf(keyId);
    expect(segment).toHaveLength(22);
    expect(keyIdOfSegment(segment)).toBe(keyId);
  });

  it.each([
    ['00000000-0000-0000-0000-000000000000', '0000000000000000000000'],
    ['00000000-0000-0000-0000-000000000001', '0000000000000000000001'],
    ['00ffffff-ffff-ffff-ffff-ffffffffffff', '01szWVIyZES2MJoAMUmjwV'],
    ['0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887', '02xEckJlfmE9WjrCjBR0WF'],
    ['019a2b3c-0000-7000-8000-00000000abcd', '031RkyP1pN1ggFfMudljsD'],
    ['ffffffff-ffff-ffff-ffff-ffffffffffff', '7n42DGM5Tflk9n8mt7Fhc7'],
  ])('writes key id %s as the segment %s, as keys already issued carry it', (keyId, segment) => {
    expect(keyIdSegmentOf(keyId)).toBe(segment);
    expect(keyIdOfSegment(segment)).toBe(keyId);
  });

  it.each([
    ['another prefix', `sk_live_${'a'.repeat(65)}`],
    ['too short', `${API_KEY_PREFIX}${'a'.repeat(64)}`],
    ['too long', `${API_KEY_PREFIX}${'a'.repeat(66)}`],
    ['empty', ''],
  ])('rejects a key with %s', (_name, key) => {
    expect(idSegmentOfKey(key)).toBeUndefined();
  });

  it.each([
    ['a character outside base62', `${'a'.repeat(21)}-`],
    ['a value above 128 bits', 'z'.repeat(22)],
    ['the value 2^128, one above the largest id', '7n42DGM5Tflk9n8mt7Fhc8'],
  ])('finds no key id in a segment with %s', (_name, segment) => {
    expect(keyIdOfSegment(segment)).toBeUndefined();
  });
});

describe('parseScopes', () => {
  it.each([
    ['all', { ok: true, scopes: [...SCOPES] }],
    ['clients:read', { ok: true, scopes: ['clients:read'] }],
    [' clients:read , products:write,clients:read ', { ok: true, scopes: ['clients:read', 'products:write'] }],
    ['clients:read,bogus,also:bogus', { ok: false, unknown: ['bogus', 'also:bogus'] }],
    ['ALL', { ok: false, unknown: ['ALL'] }],
    [',', { ok: false, unknown: [','] }],
  ])('parses %j', (input, expected) => {
    expect(parseScopes(input)).toEqual(expected);
  });
});
