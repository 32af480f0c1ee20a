import type { KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { findByIdInWorkspace } from '../../shared/find-in-workspace.ts';
import { containsPattern, OLDER_THAN_POSITION, olderThanParams } from '../../shared/listing.ts';
import { CustomerEntity, type CustomerRow } from './customer.entity.ts';

export interface CustomerFilter {
  q?: string | undefined;
  includeDeleted: boolean;
}

const findById = findByIdInWorkspace(CustomerEntity, 'customers');

export const customerRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<CustomerRow | null> => findById(em, workspaceId, id),

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<CustomerRow | null> =>
    tx.findOne(CustomerEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  /** `limit + 1` rows, newest first, after `position`; the extra row tells whether a next page exists. */
  pageNewestFirstQuery: (workspaceId: string, filter: CustomerFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(CustomerEntity).select('*').where({ workspaceId });
    if (!filter.includeDeleted) qb.andWhere({ deleted: false });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { email: { $ilike: pattern } }, { taxId: { $ilike: pattern } }] });
    }
    if (position) qb.andWhere(OLDER_THAN_POSITION, olderThanParams(position));
    return qb.orderBy({ created: 'desc', id: 'desc' }).limit(limit + 1);
  },

  add: (row: CustomerRow): CustomerRow => em.create(CustomerEntity, row),
});

export type CustomerRepository = ReturnType<typeof customerRepository>;
