import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';

/**
 * Reads one row by primary key within a workspace: the hot path of every retrieve. The workspace
 * condition makes another workspace's row look exactly like a missing one. On the transaction of
 * `em`, if any: inside a keyed write, a read on another connection would wait for a second one from
 * the pool, and a burst as large as the pool would wait for ever.
 */
export const findByIdInWorkspace =
  <Row extends { id: string; workspaceId: string }>(entity: EntityName<Row>) =>
  (em: EntityManager, workspaceId: string, id: string): Promise<Row | null> =>
    em.findOne(entity, { id, workspaceId } as FilterQuery<Row>);
