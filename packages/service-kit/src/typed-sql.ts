/**
 * The one way to write SQL by hand: Kysely in the schema's own names, typed from the service's
 * entities, with nothing between the builder and PostgreSQL.
 *
 * - Queries the ORM expresses (find, create, assign, a filter) stay with the ORM.
 * - Anything else is a Kysely query from `sqlOf(em)`: on `em`'s connection, inside its transaction
 *   when it has one, in the service's schema. Tables and columns are named as PostgreSQL names them
 *   (`invoices`, `workspace_id`); the compiler rejects a name no entity maps.
 * - Rows of an entity go in through `entityColumns` and come back through `entityRows`: the ORM's
 *   own conversions (property ↔ column, JSON, bigint, timestamps), driven by its metadata. Other
 *   results (a count, a flag) are what the driver returns: cast them in SQL to what you need.
 * - What Kysely's builder lacks (`interval` arithmetic, `for update of`) is a `sql` fragment inside
 *   a builder query; columns in it are named through the builder (`eb.ref`, `sql.ref`).
 * - Migrations are SQL text: they describe the schema as it was at their moment, not the entities now.
 *
 * Every repository's statements, as PostgreSQL receives them, are written to a committed `.sql` file
 * beside it (`npm run sql:write`); a test fails when code and file differ (see `committed-sql.ts`).
 */
import type { Dictionary, EntityMetadata, EntitySchemaWithMeta } from '@mikro-orm/core';
import type { EntityManager, InferEntity, InferKyselyDB, InferKyselyTable } from '@mikro-orm/postgresql';
import { sql, type InsertQueryBuilder, type InsertResult, type Insertable, type Kysely, type QueryCreator, type RawBuilder } from 'kysely';

/** The Kysely database of a set of entities (`typeof AEntity | typeof BEntity`), in the schema's names. */
export type EntityDatabase<Entities extends { name: string }> = InferKyselyDB<Entities>;

/** One row of an entity's table, named by its columns, as an insert takes it. */
export type EntityColumns<Entity extends AnyEntity> = Insertable<InferKyselyTable<Entity>>;

type AnyEntity = EntitySchemaWithMeta;

const entityMeta = (em: EntityManager, entity: AnyEntity): EntityMetadata => em.getMetadata().get(entity);

/**
 * `amount` units after (or, negative, before) PostgreSQL's `now()`: leases, retries and times to
 * live, in the database's clock, which every replica shares.
 */
export const nowPlus = (amount: number, unit: 'millisecond' | 'second' | 'hour'): RawBuilder<Date> =>
  sql<Date>`now() + ${amount}::double precision * ${sql.raw(`interval '1 ${unit}'`)}`;

/**
 * Kysely on `em`'s connection (its transaction, if any), in the schema of `em`'s service, or in
 * `schema` when the caller names it (the kit's own tables, in the schema their owner gives).
 */
export const sqlOf = <DB>(em: EntityManager, schema: string | undefined = em.config.get('schema')): QueryCreator<DB> => {
  // Without options, getKysely is the bare Kysely of em's connection or transaction: no plugin
  // rewrites a statement on its way. (Its type resolves `DB` only once it is known; here it is the caller's.)
  const kysely = em.getKysely() as unknown as Kysely<DB>;
  return schema ? kysely.withSchema(schema) : kysely;
};

/**
 * `insert into <table> (<row's columns>) select <row's values> from <cte>`: the row is written once
 * for each row of the CTE of the same statement, so with a change's CTE (one row or none) only when
 * the change was made. PostgreSQL types each value by the column it goes to.
 */
export const insertOnlyWith = <DB, Table extends keyof DB & string>(db: QueryCreator<DB>, table: Table, cte: string, row: Record<string, unknown>): InsertQueryBuilder<DB, Table, InsertResult> => {
  const columns = Object.keys(row);
  const insert = (db as unknown as QueryCreator<Record<string, Record<string, unknown>>>)
    .insertInto(table)
    .columns(columns)
    .expression((eb) => eb.selectFrom(cte).select(columns.map((column) => eb.val(row[column]).as(column))));
  return insert as unknown as InsertQueryBuilder<DB, Table, InsertResult>;
};

/** The columns of some of an entity's properties, in their order. */
export const columnsOf = <Entity extends AnyEntity>(em: EntityManager, entity: Entity, properties: readonly (keyof InferEntity<Entity> & string)[]): (keyof EntityColumns<Entity> & string)[] => {
  const meta = entityMeta(em, entity);
  return properties.map((property) => meta.properties[property as keyof typeof meta.properties]!.fieldNames[0]! as keyof EntityColumns<Entity> & string);
};

/**
 * An entity's row (or part of one) as its table's columns, each value as the ORM writes it
 * (JSON as text, bigint as text, custom types converted): what `values` and `set` take.
 */
export const entityColumns = <Entity extends AnyEntity, Row extends Partial<InferEntity<Entity>>>(em: EntityManager, entity: Entity, row: Row): EntityColumns<Entity> => {
  const meta = entityMeta(em, entity);
  return em.getDriver().mapDataToFieldNames({ ...row }, true, meta.properties, true) as EntityColumns<Entity>;
};

/**
 * An entity manager of the ORM's own that only builds detached entities: `entityRows` must work for
 * the global manager too (the kit's keyed writes follow it into the current transaction), whose
 * factory MikroORM hands out only inside a request context.
 */
const readers = new WeakMap<object, EntityManager>();
const readerOf = (em: EntityManager): EntityManager => {
  const metadata = em.getMetadata();
  let reader = readers.get(metadata);
  if (!reader) {
    reader = em.fork({ clear: true, useContext: false });
    readers.set(metadata, reader);
  }
  return reader;
};

/**
 * Rows a statement returned (named by columns, or JSON rows from `to_json`/`json_agg`) as the ORM
 * reads the entity: property names and its value conversions. Detached: no identity map holds
 * them, so reading the same row twice gives two objects and no flush ever writes them.
 */
export const entityRows = <Entity extends AnyEntity>(em: EntityManager, entity: Entity, rows: readonly Dictionary[]): InferEntity<Entity>[] => {
  const meta = entityMeta(em, entity);
  const reader = readerOf(em);
  const driver = reader.getDriver();
  const factory = reader.getEntityFactory();
  return rows.map(
    (row) => factory.create(entity, driver.mapResult({ ...row }, meta) as Dictionary, { merge: false, newEntity: false, convertCustomTypes: true }) as InferEntity<Entity>,
  );
};

/** One row as `entityRows` reads it; undefined stays undefined. */
export const entityRow = <Entity extends AnyEntity>(em: EntityManager, entity: Entity, row: Dictionary | undefined): InferEntity<Entity> | undefined =>
  row === undefined ? undefined : entityRows(em, entity, [row])[0];
