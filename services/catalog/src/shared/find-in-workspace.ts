import type { EntityDictionary, EntityManager, EntityName } from '@mikro-orm/postgresql';

/**
 * Reads one row by primary key within a workspace: the hot path of every retrieve. One raw,
 * parameterised query mapped by the ORM (`em.map`) costs about a quarter of the CPU of `findOne`,
 * whose query building and criteria processing dominate a lookup this small. The workspace
 * condition makes another workspace's row look exactly like a missing one.
 */
export const findByIdInWorkspace = <Row extends object>(entity: EntityName<Row>, table: string) => {
  const sql = `select * from catalog.${table} where id = ? and workspace_id = ?`;
  return async (em: EntityManager, workspaceId: string, id: string): Promise<Row | null> => {
    // On the transaction of `em`, if any: inside a keyed write, a read on another connection would
    // wait for a second one from the pool, and a burst as large as the pool would wait for ever.
    const [row] = await em.getConnection().execute(sql, [id, workspaceId], 'all', em.getTransactionContext());
    return row ? em.map(entity, row as EntityDictionary<Row>) : null;
  };
};
