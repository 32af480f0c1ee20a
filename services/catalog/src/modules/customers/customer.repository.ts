import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { findByIdInWorkspace } from '../../shared/find-in-workspace.ts';
import { containsPattern, newestFirstPage } from '@invoicing/service-kit';
import { CustomerEntity, type CustomerRow } from './customer.entity.ts';

export interface CustomerFilter {
  q?: string | undefined;
  includeDeleted: boolean;
}

const findById = findByIdInWorkspace(CustomerEntity);

export const customerRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<CustomerRow | null> => findById(em, workspaceId, id),

  pageNewestFirstQuery: (workspaceId: string, filter: CustomerFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(CustomerEntity).select('*').where({ workspaceId });
    if (!filter.includeDeleted) qb.andWhere({ deleted: false });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { email: { $ilike: pattern } }, { taxId: { $ilike: pattern } }] });
    }
    return newestFirstPage(qb, position, limit);
  },

  add: (row: CustomerRow): CustomerRow => em.create(CustomerEntity, row),
});

export type CustomerRepository = ReturnType<typeof customerRepository>;
