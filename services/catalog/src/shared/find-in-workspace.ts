import { sqlOf } from '@invoicing/service-kit';
import type { EntityData, EntityManager, EntityName } from '@mikro-orm/postgresql';
import type { CatalogDatabase } from '../database.ts';

/**
 * Reads one row by primary key within a workspace: the hot path of every retrieve. One Kysely
 * query whose row the ORM merges as it is (`sqlOf` already gave it property names and converted
 * its values) costs a fraction of the CPU of `findOne`, whose query building and criteria
 * processing dominate a lookup this small. The workspace condition makes another workspace's row
 * look exactly like a missing one.
 */
export const findByIdInWorkspace = <Row extends object>(entity: EntityName<Row> & { name: keyof CatalogDatabase }) => {
  // Every catalog table has `id` and `workspaceId`; one of them stands for all in the builder's types.
  const table = entity.name as 'Customer';
  return async (em: EntityManager, workspaceId: string, id: string): Promise<Row | null> => {
    // On the transaction of `em`, if any: inside a keyed write, a read on another connection would
    // wait for a second one from the pool, and a burst as large as the pool would wait for ever.
    const row = await sqlOf<CatalogDatabase>(em).selectFrom(table).selectAll().where('id', '=', id).where('workspaceId', '=', workspaceId).executeTakeFirst();
    if (!row) return null;
    // As `em.map` merges a row it mapped itself: refreshed if already loaded, neither validated nor cascaded.
    return em.merge(entity, row as EntityData<Row>, { refresh: true, validate: false, cascade: false });
  };
};
