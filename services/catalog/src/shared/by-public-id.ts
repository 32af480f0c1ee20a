import { parsePublicId } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';
import { LockMode, type EntityManager, type EntityName, type FilterQuery } from '@mikro-orm/postgresql';

type CatalogKind = 'customer' | 'product' | 'price';
interface WorkspaceRow {
  id: string;
  workspaceId: string;
}

/**
 * The row a path ID names, looked up in the caller's workspace by `find`. A malformed ID, another
 * resource's prefix, an unknown ID and another workspace's ID all answer the same 404.
 */
export const loadByPublicId = async <Row>(
  kind: CatalogKind,
  publicId: string,
  find: (id: string) => Promise<Row | null>,
): Promise<Row> => {
  const id = parsePublicId(kind, publicId);
  const row = id === undefined ? null : await find(id);
  if (!row) throw notFound(kind, publicId);
  return row;
};

/**
 * Locks the row a path ID names in the workspace, applies `change` and commits (404 as above).
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
