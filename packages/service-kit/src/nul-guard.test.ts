import { describe, expect, it } from 'vitest';
import { findNulCharacter as sut } from './nul-guard.ts';

describe('findNulCharacter', () => {
  it.each<[string, unknown, string | undefined]>([
    ['no body', undefined, undefined],
    ['clean text', { name: 'Acme', address: { line1: 'Main St' } }, undefined],
    ['a top-level field', { name: 'a\u0000' }, 'name'],
    ['a nested field', { address: { city: '\u0000' } }, 'address.city'],
    ['an array element', { images: ['https://a.example', 'x\u0000'] }, 'images.1'],
    ['a bare string', 'a\u0000', ''],
    ['numbers and booleans', { unit_amount: 0, active: false }, undefined],
  ])('%s', (_, value, path) => {
    expect(sut(value)).toBe(path);
  });

  it('does not descend past the deepest shape a request can have', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i += 1) deep = [deep];
    expect(sut(deep)).toBeUndefined();
  });
});
