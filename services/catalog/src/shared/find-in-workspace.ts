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
    const [row] = await em.getConnection().execute(sql, [id, workspaceId]);
    return row ? em.map(entity, row as EntityDictionary<Row>) : null;
  };
};
