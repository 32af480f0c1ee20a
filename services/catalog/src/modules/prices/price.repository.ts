import type { Metadata, PriceType } from '@invoicing/contracts';
import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { newestFirstPage, whereMetadataHolds } from '@invoicing/service-kit';
import { PriceEntity, type PriceRow } from './price.entity.ts';

export interface PriceFilter {
  productId?: string | undefined;
  active?: boolean | undefined;
  currency?: string | undefined;
  type?: PriceType | undefined;
  /** Pairs every row's metadata must hold. */
  metadata?: Metadata | undefined;
}

export const priceRepository = (em: EntityManager) => ({
  /** The row with this id in the workspace; another workspace's row is as missing as an unknown id. */
  findInWorkspace: (workspaceId: string, id: string): Promise<PriceRow | null> => em.findOne(PriceEntity, { id, workspaceId }),

  pageNewestFirstQuery: (workspaceId: string, filter: PriceFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(PriceEntity).select('*').where({ workspaceId });
    if (filter.productId !== undefined) qb.andWhere({ productId: filter.productId });
    if (filter.active !== undefined) qb.andWhere({ active: filter.active });
    if (filter.currency !== undefined) qb.andWhere({ currency: filter.currency });
    if (filter.type !== undefined) qb.andWhere({ type: filter.type });
    whereMetadataHolds(qb, filter.metadata);
    return newestFirstPage(qb, position, limit);
  },

  add: (row: PriceRow): PriceRow => em.create(PriceEntity, row),
});
