import { describe, expect, it } from 'vitest';
import { canonicalJson, fingerprintOf, idempotencyKeyOf, replayableHeaders } from './idempotency.domain.ts';

describe('idempotencyKeyOf', () => {
  it.each([
    ['a required key that is present', 'abc', 'required', 'abc'],
    ['an optional key that is present', 'abc', 'optional', 'abc'],
    ['an optional key that is absent', undefined, 'optional', undefined],
    ['a key on a read, which ignores it', 'x'.repeat(300), 'none', undefined],
    ['a key of exactly 255 characters', 'k'.repeat(255), 'optional', 'k'.repeat(255)],
  ] as const)('accepts %s', (_name, header, rule, expected) => {
    expect(idempotencyKeyOf(header, rule)).toBe(expected);
  });

  it.each([
    ['a required key that is absent', undefined, 'required', 'idempotency_key_required', 428],
    ['a key of 256 characters', 'k'.repeat(256), 'optional', 'invalid_request', 400],
    ['an empty key', '', 'required', 'invalid_request', 400],
    ['a key sent twice', ['a', 'b'], 'optional', 'invalid_request', 400],
  ] as const)('refuses %s', (_name, header, rule, code, status) => {
    expect(() => idempotencyKeyOf(header as string | string[] | undefined, rule)).toThrow(expect.objectContaining({ code, status }));
  });
});

describe('fingerprints', () => {
  it('ignore the order of object keys at every depth', () => {
    expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"y":2,"z":1}]},"b":1}');
    expect(fingerprintOf('POST', '/x', { a: 1, b: 2 })).toBe(fingerprintOf('POST', '/x', { b: 2, a: 1 }));
  });

  it.each([
    ['another body', ['POST', '/x', { a: 2 }]],
    ['another path', ['POST', '/y', { a: 1 }]],
    ['another method', ['PATCH', '/x', { a: 1 }]],
    ['no body', ['POST', '/x', undefined]],
    ['an array order', ['POST', '/x', { a: [1] }]],
  ] as const)('differ for %s', (_name, [method, url, body]) => {
    expect(fingerprintOf(method, url, body)).not.toBe(fingerprintOf('POST', '/x', { a: 1 }));
  });
});

describe('replayableHeaders', () => {
  it('keeps what describes the response and drops what belongs to one connection or request', () => {
    expect(
      replayableHeaders({
        'content-type': 'application/json',
        location: '/api/v1/customers/cus_1',
        'content-length': '12',
        connection: 'keep-alive',
        date: 'Mon',
        'x-request-id': 'first',
        'transfer-encoding': 'chunked',
      }),
    ).toEqual({ 'content-type': 'application/json', location: '/api/v1/customers/cus_1' });
  });
});
