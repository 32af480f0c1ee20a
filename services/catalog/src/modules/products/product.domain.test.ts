import { describe, expect, it } from 'vitest';
import { productChanges as sut } from './product.domain.ts';
import type { ProductRow } from './product.entity.ts';

const created = new Date('2026-01-01T00:00:00.000Z');
const now = new Date('2026-06-01T00:00:00.000Z');

const makeProduct = (overrides: Partial<ProductRow> = {}): ProductRow => ({
  id: '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887',
  workspaceId: '0190f3e2-0000-7000-8000-000000000001',
  name: 'Widget',
  description: 'A widget',
  images: ['https://cdn.example.com/a.png'],
  active: true,
  metadata: {},
  created,
  updated: created,
  ...overrides,
});

describe('productChanges', () => {
  it.each<[string, Parameters<typeof sut>[1], Partial<ProductRow>]>([
    ['nothing proposed: no change, updated kept', {}, {}],
    ['the same values: no change, updated kept', { name: 'Widget', images: ['https://cdn.example.com/a.png'], active: true }, {}],
    ['a new name moves updated', { name: 'Gadget' }, { name: 'Gadget', updated: now }],
    ['a cleared description', { description: null }, { description: null, updated: now }],
    ['images replaced as a whole', { images: [] }, { images: [], updated: now }],
    ['archiving an active product', { active: false }, { active: false, updated: now }],
    ['only the fields that differ', { name: 'Widget', active: false }, { active: false, updated: now }],
  ])('%s', (_, proposed, expected) => {
    expect(sut(makeProduct(), proposed, now)).toEqual(expected);
  });

  it('archiving an archived product changes nothing', () => {
    expect(sut(makeProduct({ active: false }), { active: false }, now)).toEqual({});
  });
});
