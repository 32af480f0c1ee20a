import { describe, expect, it } from 'vitest';
import { gatherMetadataQuery as sut, MetadataFilterQuery, PageQuery } from './common.ts';
import { z } from 'zod';

const ListQuery = z.strictObject({ ...PageQuery.shape, ...MetadataFilterQuery.shape });
const parse = (query: Record<string, unknown>) => ListQuery.safeParse(sut(query));

describe('the metadata[key]=value list filter', () => {
  it('gathers metadata[key] parameters into one object and leaves the others', () => {
    expect(sut({ limit: '5', 'metadata[order_id]': '6735', 'metadata[tier]': 'gold' })).toEqual({ limit: '5', metadata: { order_id: '6735', tier: 'gold' } });
    expect(sut({ limit: '5' })).toEqual({ limit: '5' });
    expect(parse({ 'metadata[order_id]': '6735' }).data).toMatchObject({ metadata: { order_id: '6735' } });
  });

  it.each<[string, Record<string, unknown>]>([
    ['metadata=x', { metadata: 'x' }],
    ['metadata[]=x', { 'metadata[]': 'x' }],
    ['a key sent twice', { 'metadata[tier]': ['a', 'b'] }],
    ['an empty value', { 'metadata[tier]': '' }],
    ['a 41-character key', { [`metadata[${'k'.repeat(41)}]`]: 'v' }],
    ['a 501-character value', { 'metadata[note]': 'v'.repeat(501) }],
    ['metadata[a] beside metadata=x', { 'metadata[a]': '1', metadata: 'x' }],
    ['51 pairs', Object.fromEntries(Array.from({ length: 51 }, (_, index) => [`metadata[k${index}]`, 'v']))],
  ])('refuses %s', (_, query) => {
    expect(parse(query).success).toBe(false);
  });

  it('keeps a key named __proto__ as a key', () => {
    const gathered = sut(JSON.parse('{"metadata[__proto__]":"x"}')) as { metadata: Record<string, string> };
    expect(Object.keys(gathered.metadata)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(gathered.metadata)).toBe(Object.prototype);
  });
});
