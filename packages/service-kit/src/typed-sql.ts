/**
 * The one way to write SQL by hand: Kysely, typed by the service's entities and naming tables and
 * columns as the entities and their properties do. MikroORM's metadata turns those names into the
 * schema's (a renamed column is one change in its entity, and the compiler finds every query that
 * no longer fits), maps result rows back to property names and converts values as the ORM does.
 *
 * - Queries the ORM expresses (find, create, assign, a filter) stay with the ORM.
 * - Anything else is a Kysely query from `sqlOf(em)`: on `em`'s connection, inside its transaction
 *   when it has one, in the service's schema.
 * - What Kysely's builder lacks (`interval` arithmetic, `jsonb_populate_recordset`, `for update of`)
 *   is a `sql` fragment inside a builder query; columns in it are named through the builder
 *   (`eb.ref`, `sql.ref`), never spelled by hand.
 * - Migrations are SQL text: they describe the schema as it was at their moment, not the entities now.
 */
import type { EntityManager, InferKyselyDB } from '@mikro-orm/postgresql';
import type { Kysely, QueryCreator } from 'kysely';

/** Entity and property names in queries, converted to the schema's by the ORM's metadata. */
export const SQL_NAMING = { tableNamingStrategy: 'entity', columnNamingStrategy: 'property', convertValues: true } as const;

/** The Kysely database of a set of entities (`typeof AEntity | typeof BEntity`), named as `SQL_NAMING` says. */
export type EntityDatabase<Entities extends { name: string }> = InferKyselyDB<Entities, typeof SQL_NAMING>;

/**
 * Kysely on `em`'s connection (its transaction, if any), in the schema of `em`'s service, or in
 * `schema` when the caller names it (the kit's own tables, in the schema their owner gives).
 */
export const sqlOf = <DB>(em: EntityManager, schema: string | undefined = em.config.get('schema')): QueryCreator<DB> => {
  // getKysely's type resolves `DB` only once it is known; here it is the caller's.
  const kysely = em.getKysely<DB>(SQL_NAMING) as unknown as Kysely<DB>;
  return schema ? kysely.withSchema(schema) : kysely;
};
