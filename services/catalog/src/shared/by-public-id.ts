import { loadByPublicId } from '@invoicing/service-kit';
import { LockMode, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';

type CatalogKind = 'customer' | 'product' | 'price';
interface WorkspaceRow {
  id: string;
  workspaceId: string;
}

/**
 * Locks the row a path ID names in the workspace, applies `change` and commits (404 as in
 * `loadByPublicId`).
 * The row lock makes concurrent changes apply one after the other, so none is lost, such as
 * two PATCHes merging different address keys.
 */
export const changeByPublicId = <Row extends WorkspaceRow>(
  em: EntityManager,
  entity: EntityName<Row>,
  kind: CatalogKind,
  workspaceId: string,
  publicId: string,
  change: (row: Row) => Partial<Row>,
): Promise<Row> =>
  em.transactional(async (tx) => {
    const where = (id: string) => ({ id, workspaceId }) as FilterQuery<Row>;
    const row = await loadByPublicId(kind, publicId, (id) => tx.findOne(entity, where(id), { lockMode: LockMode.PESSIMISTIC_WRITE }));
    // Plain property writes: the unit of work diffs the row against its loaded state at commit.
    Object.assign(row, change(row));
    return row;
  });
