import { describe, expect, it } from 'vitest';
import { AppError } from './app-error.ts';
import { mergeMetadata as sut } from './metadata.ts';

const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`k${index}`, 'v']));

describe('mergeMetadata', () => {
  it.each([
    [{}, undefined, {}],
    [{}, { a: '1', gone: '' }, { a: '1' }],
    [{ a: '1', b: '2' }, { b: '' }, { a: '1' }],
    [{ a: '1' }, { a: '2', c: '3' }, { a: '2', c: '3' }],
    [{ a: '1' }, {}, { a: '1' }],
  ])('%o merged with %o is %o', (current, sent, merged) => {
    expect(sut(current, sent)).toEqual(merged);
  });

  it('leaves the current metadata as it was', () => {
    const current = { a: '1' };
    sut(current, { a: '', b: '2' });
    expect(current).toEqual({ a: '1' });
  });

  it('refuses more than 50 keys after the merge with a 400 on metadata, and takes 50', () => {
    expect(Object.keys(sut(keys(49), { extra: 'v' }))).toHaveLength(50);
    expect(Object.keys(sut(keys(50), { k0: '', extra: 'v' }))).toHaveLength(50);
    const refused = (() => {
      try {
        sut(keys(50), { extra: 'v' });
      } catch (error) {
        return error;
      }
    })();
    expect(refused).toBeInstanceOf(AppError);
    expect(refused).toMatchObject({ code: 'invalid_request', errors: [{ path: 'metadata' }] });
  });
});
