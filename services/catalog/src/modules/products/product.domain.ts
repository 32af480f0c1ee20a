import { toPublicId, type CreateProductBody, type Product, type UpdateProductBody } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit/ids';
import { mergeMetadata } from '@invoicing/service-kit/metadata';
import { isDeepStrictEqual } from 'node:util';
import type { ProductRow } from './product.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

export type EditableProduct = Pick<ProductRow, 'name' | 'description' | 'images' | 'active' | 'metadata'>;

export const newProduct = (workspaceId: string, body: CreateProductBody, now: Date): ProductRow => ({
  id: newId(),
  workspaceId,
  name: body.name,
  description: body.description ?? null,
  images: body.images,
  active: body.active,
  metadata: mergeMetadata({}, body.metadata),
  created: now,
  updated: now,
});

/**
 * The fields that really change, with `updated` moved to `now` when any does; a PATCH that sends
 * the current values (or an archive of an archived product) leaves `updated` alone.
 */
export const productChanges = (current: ProductRow, proposed: Partial<EditableProduct>, now: Date): Partial<ProductRow> => {
  const changes: Partial<EditableProduct> = {};
  for (const key of Object.keys(proposed) as (keyof EditableProduct)[]) {
    const value = proposed[key];
    if (value !== undefined && !isDeepStrictEqual(value, current[key])) Object.assign(changes, { [key]: value });
  }
  return Object.keys(changes).length === 0 ? {} : { ...changes, updated: now };
};

/** What a PATCH proposes for `current`: the fields sent, and metadata merged into the current pairs. */
export const productPatch = (current: ProductRow, patch: UpdateProductBody): Partial<EditableProduct> => ({
  ...(patch.name !== undefined ? { name: patch.name } : {}),
  ...(patch.description !== undefined ? { description: patch.description } : {}),
  ...(patch.images !== undefined ? { images: patch.images } : {}),
  ...(patch.active !== undefined ? { active: patch.active } : {}),
  ...(patch.metadata !== undefined ? { metadata: mergeMetadata(current.metadata, patch.metadata) } : {}),
});

/** DELETE archives: the product leaves the active catalog, and prices and invoice lines stay as they are. */
export const ARCHIVE: Partial<EditableProduct> = { active: false };

export const productView = (row: ProductRow): Product => ({
  id: toPublicId('product', row.id),
  object: 'product',
  livemode: livemodeOf(row.workspaceId),
  name: row.name,
  description: row.description ?? null,
  images: row.images,
  active: row.active,
  metadata: row.metadata,
  created: row.created.toISOString(),
  updated: row.updated.toISOString(),
});
