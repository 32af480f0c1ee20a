import type { Metadata } from '@invoicing/contracts';
import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, newestFirstPage, whereMetadataHolds } from '@invoicing/service-kit';
import { ProductEntity, type ProductRow } from './product.entity.ts';

export interface ProductFilter {
  q?: string | undefined;
  active?: boolean | undefined;
  /** Pairs every row's metadata must hold. */
  metadata?: Metadata | undefined;
}

export const productRepository = (em: EntityManager) => ({
  /** The row with this id in the workspace; another workspace's row is as missing as an unknown id. */
  findInWorkspace: (workspaceId: string, id: string): Promise<ProductRow | null> => em.findOne(ProductEntity, { id, workspaceId }),

  existsInWorkspace: async (workspaceId: string, id: string): Promise<boolean> =>
    (await em.count(ProductEntity, { id, workspaceId })) > 0,

  pageNewestFirstQuery: (workspaceId: string, filter: ProductFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(ProductEntity).select('*').where({ workspaceId });
    if (filter.active !== undefined) qb.andWhere({ active: filter.active });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { description: { $ilike: pattern } }] });
    }
    whereMetadataHolds(qb, filter.metadata);
    return newestFirstPage(qb, position, limit);
  },

  add: (row: ProductRow): ProductRow => em.create(ProductEntity, row),
});
