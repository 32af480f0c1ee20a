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
import { MikroKyselyPlugin, type EntityManager, type EntityProperty, type InferKyselyDB, type Platform } from '@mikro-orm/postgresql';
import { sql, type RawBuilder } from 'kysely';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryCreator, QueryResult, RootOperationNode, UnknownRow } from 'kysely';

/** Entity and property names in queries, converted to the schema's by the ORM's metadata. */
const SQL_NAMING = { tableNamingStrategy: 'entity', columnNamingStrategy: 'property', convertValues: true } as const;

/** The Kysely database of a set of entities (`typeof AEntity | typeof BEntity`), named as `SQL_NAMING` says. */
export type EntityDatabase<Entities extends { name: string }> = InferKyselyDB<Entities, typeof SQL_NAMING>;

/**
 * `amount` units after (or, negative, before) PostgreSQL's `now()`: leases, retries and times to
 * live, in the database's clock, which every replica shares.
 */
export const nowPlus = (amount: number, unit: 'millisecond' | 'second' | 'hour'): RawBuilder<Date> =>
  sql<Date>`now() + ${amount}::double precision * ${sql.raw(`interval '1 ${unit}'`)}`;

/** What a result column becomes: the property it is stored for, and its value as the ORM reads it. */
interface ResultColumn {
  property: string;
  read: (value: unknown) => unknown;
  /** What `read` makes of sample values: two properties that share a column name may share its reading only when these agree. */
  reading: string;
}

/** A property's value as MikroORM's Kysely plugin reads it (`convertValues`). */
const readerOf = (property: EntityProperty, platform: Platform): ResultColumn['read'] => {
  const { customType } = property;
  if (customType) return (value) => (value == null ? value : customType.convertToJSValue(value, platform));
  if (property.runtimeType === 'boolean') return (value) => (value == null ? value : Boolean(value));
  if (property.runtimeType === 'Date' && !platform.isNumericProperty(property)) {
    // A timestamp without its zone is in the ORM's time zone (UTC here), as the plugin reads it.
    const timezone = platform.getTimezone();
    const hasZone = (value: unknown) => typeof value === 'number' || (typeof value === 'string' && (value.includes('+') || value.lastIndexOf('-') > 10 || value.endsWith('Z')));
    const parse = (value: unknown) => platform.parseDate((!timezone || timezone === 'local' || hasZone(value) ? value : `${String(value)}${timezone}`) as string);
    return (value) => (value == null || value instanceof Date ? value : parse(value));
  }
  return (value) => value;
};

// A text, a number in text, a timestamp: whatever a reader changes, it changes one of these.
const SAMPLES = ['x', '12', '2026-01-02 03:04:05+00'];

const readingOf = (read: ResultColumn['read']): string =>
  SAMPLES.map((sample) => {
    try {
      const value = read(sample);
      return `${typeof value}:${String(value)}`;
    } catch {
      return 'throws';
    }
  }).join('|');

/**
 * Every result column of the service's entities, by the name it comes back under (its column, or
 * its property when a query names it so); null where two entities read one name differently.
 */
const resultColumnsOf = (em: EntityManager): Map<string, ResultColumn | null> => {
  const platform = em.getPlatform();
  const columns = new Map<string, ResultColumn | null>();
  const add = (name: string, column: ResultColumn) => {
    const known = columns.get(name);
    if (known === undefined) columns.set(name, column);
    else if (known !== null && (known.property !== column.property || known.reading !== column.reading)) columns.set(name, null);
  };
  for (const meta of em.getMetadata()) {
    for (const property of meta.props) {
      const read = readerOf(property, platform);
      const column = { property: property.name, read, reading: readingOf(read) };
      for (const fieldName of property.fieldNames ?? []) add(fieldName, column);
      add(property.name, column);
    }
  }
  return columns;
};

/**
 * MikroORM's plugin names tables and columns in queries; its result mapping rebuilds a map of every
 * column of every entity in the query, for every query, and walks all of it for each row: about a
 * third of a finalize's CPU. Here rows are mapped by their own keys, from one map per ORM. A row
 * with a name two entities read differently goes through the plugin's own mapping, which knows
 * which entities the query read.
 */
class EntityNamingPlugin implements KyselyPlugin {
  readonly #naming: MikroKyselyPlugin;
  readonly #columns: Map<string, ResultColumn | null>;

  constructor(em: EntityManager) {
    // The plugin reads only the metadata and the platform of `em` (with hooks off), so one serves every fork.
    this.#naming = new MikroKyselyPlugin(em, SQL_NAMING);
    this.#columns = resultColumnsOf(em);
  }

  transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
    return this.#naming.transformQuery(args);
  }

  async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
    const { rows } = args.result;
    if (rows.length === 0) return args.result;
    for (const key of Object.keys(rows[0]!)) if (this.#columns.get(key) === null) return this.#naming.transformResult(args);
    return { ...args.result, rows: rows.map((row) => this.#mapRow(row)) };
  }

  #mapRow(row: UnknownRow): UnknownRow {
    const mapped: UnknownRow = {};
    for (const key in row) {
      const column = this.#columns.get(key);
      if (column) mapped[column.property] = column.read(row[key]);
      else mapped[key] = row[key];
    }
    return mapped;
  }
}

const plugins = new WeakMap<object, EntityNamingPlugin>();

const namingPluginOf = (em: EntityManager): EntityNamingPlugin => {
  const metadata = em.getMetadata();
  let plugin = plugins.get(metadata);
  if (!plugin) {
    plugin = new EntityNamingPlugin(em);
    plugins.set(metadata, plugin);
  }
  return plugin;
};

/**
 * Kysely on `em`'s connection (its transaction, if any), in the schema of `em`'s service, or in
 * `schema` when the caller names it (the kit's own tables, in the schema their owner gives).
 */
export const sqlOf = <DB>(em: EntityManager, schema: string | undefined = em.config.get('schema')): QueryCreator<DB> => {
  // Without options, getKysely is the bare Kysely of em's connection or transaction. (Its type
  // resolves `DB` only once it is known; here it is the caller's.)
  const kysely = (em.getKysely() as unknown as Kysely<DB>).withPlugin(namingPluginOf(em));
  return schema ? kysely.withSchema(schema) : kysely;
};
