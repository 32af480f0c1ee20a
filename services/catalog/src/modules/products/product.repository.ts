import type { KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findByIdInWorkspace } from '../../shared/find-in-workspace.ts';
import { containsPattern, OLDER_THAN_POSITION, olderThanParams } from '../../shared/listing.ts';
import { ProductEntity, type ProductRow } from './product.entity.ts';

export interface ProductFilter {
  q?: string | undefined;
  active?: boolean | undefined;
}

const findById = findByIdInWorkspace(ProductEntity, 'products');

export const productRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<ProductRow | null> => findById(em, workspaceId, id),

  existsInWorkspace: async (workspaceId: string, id: string): Promise<boolean> =>
    (await em.count(ProductEntity, { id, workspaceId })) > 0,

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<ProductRow | null> =>
    tx.findOne(ProductEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  /** `limit + 1` rows, newest first, after `position`; the extra row tells whether a next page exists. */
  pageNewestFirstQuery: (workspaceId: string, filter: ProductFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(ProductEntity).select('*').where({ workspaceId });
    if (filter.active !== undefined) qb.andWhere({ active: filter.active });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { description: { $ilike: pattern } }] });
    }
    if (position) qb.andWhere(OLDER_THAN_POSITION, olderThanParams(position));
    return qb.orderBy({ created: 'desc', id: 'desc' }).limit(limit + 1);
  },

  add: (row: ProductRow): ProductRow => em.create(ProductEntity, row),
});
