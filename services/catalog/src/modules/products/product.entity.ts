import type { Metadata } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const ProductEntity = defineEntity({
  name: 'Product',
  tableName: 'products',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    name: p.text(),
    description: p.text().nullable(),
    images: p.json<string[]>(),
    active: p.boolean(),
    metadata: p.json<Metadata>(),
    created: p.datetime(3),
    updated: p.datetime(3),
  },
});
export type ProductRow = InferEntity<typeof ProductEntity>;
