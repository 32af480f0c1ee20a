import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findByIdInWorkspace } from '../../shared/find-in-workspace.ts';
import { containsPattern, newestFirstPage } from '@invoicing/service-kit';
import { ProductEntity, type ProductRow } from './product.entity.ts';

export interface ProductFilter {
  q?: string | undefined;
  active?: boolean | undefined;
}

const findById = findByIdInWorkspace(ProductEntity);

export const productRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<ProductRow | null> => findById(em, workspaceId, id),

  existsInWorkspace: async (workspaceId: string, id: string): Promise<boolean> =>
    (await em.count(ProductEntity, { id, workspaceId })) > 0,

  pageNewestFirstQuery: (workspaceId: string, filter: ProductFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(ProductEntity).select('*').where({ workspaceId });
    if (filter.active !== undefined) qb.andWhere({ active: filter.active });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { description: { $ilike: pattern } }] });
    }
    return newestFirstPage(qb, position, limit);
  },

  add: (row: ProductRow): ProductRow => em.create(ProductEntity, row),
});
