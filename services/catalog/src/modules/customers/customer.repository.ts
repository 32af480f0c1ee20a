import type { Metadata } from '@invoicing/contracts';
import type { KeysetPosition } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { containsPattern, newestFirstPage, whereMetadataHolds } from '@invoicing/service-kit';
import { CustomerEntity, type CustomerRow } from './customer.entity.ts';

export interface CustomerFilter {
  q?: string | undefined;
  includeDeleted: boolean;
  /** Pairs every row's metadata must hold. */
  metadata?: Metadata | undefined;
}

export const customerRepository = (em: EntityManager) => ({
  /** The row with this id in the workspace; another workspace's row is as missing as an unknown id. */
  findInWorkspace: (workspaceId: string, id: string): Promise<CustomerRow | null> => em.findOne(CustomerEntity, { id, workspaceId }),

  pageNewestFirstQuery: (workspaceId: string, filter: CustomerFilter, position: KeysetPosition | undefined, limit: number) => {
    const qb = em.createQueryBuilder(CustomerEntity).select('*').where({ workspaceId });
    if (!filter.includeDeleted) qb.andWhere({ deleted: false });
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ name: { $ilike: pattern } }, { email: { $ilike: pattern } }, { taxId: { $ilike: pattern } }] });
    }
    whereMetadataHolds(qb, filter.metadata);
    return newestFirstPage(qb, position, limit);
  },

  add: (row: CustomerRow): CustomerRow => em.create(CustomerEntity, row),

  /**
   * Marks every customer of the workspace whose email is `address` (compared case-insensitively,
   * as mail servers treat it in practice) as bounced; returns how many. Setting it twice changes
   * nothing, so a redelivered event needs no record of its own.
   */
  markEmailBounced: (workspaceId: string, address: string): Promise<number> =>
    em.nativeUpdate(CustomerEntity, { workspaceId, email: { $ilike: address.replace(/[\\%_]/g, '\\$&') }, emailStatus: 'ok' }, { emailStatus: 'bounced' }),

  /** Deletes the customers living on a deleted test clock; returns how many. */
  removeOfTestClock: (workspaceId: string, testClockId: string): Promise<number> => em.nativeDelete(CustomerEntity, { workspaceId, testClockId }),
});

export type CustomerRepository = ReturnType<typeof customerRepository>;
