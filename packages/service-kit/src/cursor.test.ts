import { describe, expect, it } from 'vitest';
import { containsPattern as sut } from './cursor.ts';

describe('containsPattern', () => {
  it.each([
    ['acme', '%acme%'],
    ['100%', '%100\\%%'],
    ['a_b', '%a\\_b%'],
    ['C:\\path', '%C:\\\\path%'],
    ['%_\\', '%\\%\\_\\\\%'],
  ])('matches %j literally anywhere: %j', (search, pattern) => {
    expect(sut(search)).toBe(pattern);
  });
});
