import { sqlOf } from '@invoicing/service-kit';
import type { EntityDictionary, EntityManager, EntityName } from '@mikro-orm/postgresql';
import type { CompiledQuery } from 'kysely';
import type { CatalogDatabase } from '../database.ts';

/**
 * Reads one row by primary key within a workspace: the hot path of every retrieve. A query
 * compiled once (per ORM, from the entity's metadata) and sent with each read's values, its row
 * mapped by the ORM (`em.map`), costs about a quarter of the CPU of `findOne`, whose query building
 * and criteria processing dominate a lookup this small. Built and run through `sqlOf` on every
 * read, it would cost half as much again (about 120 µs more: compiling, and the plugin renaming
 * the row's columns). The workspace condition makes another workspace's row look exactly like a
 * missing one.
 */
export const findByIdInWorkspace = <Row extends object>(entity: EntityName<Row> & { name: keyof CatalogDatabase }) => {
  // Every catalog table has `id` and `workspaceId`; one of them stands for all in the builder's types.
  const table = entity.name as 'Customer';
  const compiled = new WeakMap<object, CompiledQuery>();
  const queryOf = (em: EntityManager): CompiledQuery => {
    const metadata = em.getMetadata();
    let query = compiled.get(metadata);
    if (!query) {
      // Parameters $1 and $2, in this order: each read gives its own.
      query = sqlOf<CatalogDatabase>(em).selectFrom(table).selectAll().where('id', '=', '$1').where('workspaceId', '=', '$2').compile();
      compiled.set(metadata, query);
    }
    return query;
  };
  return async (em: EntityManager, workspaceId: string, id: string): Promise<Row | null> => {
    // On the transaction of `em`, if any: inside a keyed write, a read on another connection would
    // wait for a second one from the pool, and a burst as large as the pool would wait for ever.
    // Kysely without sqlOf's plugin: the row keeps its column names, which `em.map` expects.
    const {
      rows: [row],
    } = await em.getKysely().executeQuery<EntityDictionary<Row>>({ ...queryOf(em), parameters: [id, workspaceId] });
    return row ? em.map(entity, row) : null;
  };
};
