/**
 * What prepares a database before any of a service's migrations run: whether it exists, its
 * creation, the schema, and the advisory lock that makes replicas migrate one after another.
 * PostgreSQL's catalog and maintenance commands, which no entity describes.
 */
export const DATABASE_SETUP_SQL = {
  databaseExists: 'select 1 from pg_database where datname = $1',
  createDatabase: (name: string): string => `create database "${name.replaceAll('"', '""')}"`,
  createSchema: (schema: string): string => `create schema if not exists "${schema}"`,
  lockMigrations: 'select pg_advisory_lock(hashtext($1))',
  unlockMigrations: 'select pg_advisory_unlock(hashtext($1))',
} as const;

/** Runs SQL in a migration and returns its rows (`this.execute` of a MikroORM migration). */
export type MigrationExecute = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * Creates pg_trgm (once per database; services migrating at the same moment may race to it) and
 * returns its `gin_trgm_ops` operator class, qualified with the schema it lives in.
 */
export const trigramOperatorClass = async (execute: MigrationExecute): Promise<string> => {
  await execute(`
    do $$ begin
      create extension if not exists pg_trgm with schema public;
    exception when unique_violation or duplicate_object then null;
    end $$`);
  const [extension] = await execute(
    `select n.nspname as schema from pg_extension e join pg_namespace n on n.oid = e.extnamespace where e.extname = 'pg_trgm'`,
  );
  return `"${String(extension?.schema ?? 'public')}".gin_trgm_ops`;
};

/**
 * Creates btree_gin (once per database, racing like pg_trgm), which lets one GIN index hold a
 * `uuid` column beside a `jsonb` one: the metadata index below.
 */
export const createBtreeGin = async (execute: MigrationExecute): Promise<void> => {
  await execute(`
    do $$ begin
      create extension if not exists btree_gin with schema public;
    exception when unique_violation or duplicate_object then null;
    end $$`);
};

/**
 * The index of the `metadata[key]=value` list filter (decisions.md "metadata") on a table of
 * workspace rows, as first created: GIN over (workspace_id, metadata jsonb_path_ops), which answers
 * `workspace_id = $1 and metadata @> $2` with the rows of that workspace alone, so a pair held by
 * a few rows is found without walking the workspace's newest-first index (the planner still takes
 * that index when many rows match). Without the pending list, a new row is in the index at once.
 * Needs `createBtreeGin` first.
 */
export const metadataIndexSql = (schema: string, table: string): string =>
  `create index ${table}_metadata on "${schema}".${table} using gin (workspace_id, metadata jsonb_path_ops) with (fastupdate = off)`;

/** The `metadata` column as first added to a table that had none: every existing row has `{}`. */
export const addMetadataColumnSql = (schema: string, table: string): string =>
  `alter table "${schema}".${table} add column metadata jsonb not null default '{}'`;

/**
 * The outbox table as first created, with the partial index the relay's claim walks in
 * (created_at, id) order. Applied migrations call it, so it never changes: a new service's
 * migration runs it and then `outboxClaimColumnsSql`, which gives the table `OutboxRelay` reads now.
 */
export const outboxTableSql = (schema: string): string[] => [
  `create table "${schema}".outbox (
     id uuid primary key,
     subject text not null,
     envelope jsonb not null,
     created_at timestamptz not null default clock_timestamp(),
     published_at timestamptz
   )`,
  `create index outbox_unpublished on "${schema}".outbox (created_at, id) where published_at is null`,
];

/**
 * The outbox's second version: `claimed_until`, the lease of the relay publishing a row (null: free,
 * or released after a failed publish), and `trace_context`, the W3C trace context of the request
 * that added the row (null with tracing off), so its publish joins that request's trace. Nullable
 * columns without a default: adding them rewrites nothing. The partial index still serves the
 * claim, which filters `claimed_until` on the rows it walks.
 */
export const outboxClaimColumnsSql = (schema: string): string[] => [
  `alter table "${schema}".outbox add column claimed_until timestamptz, add column trace_context jsonb`,
];

/** Undoes `outboxClaimColumnsSql`. */
export const dropOutboxClaimColumnsSql = (schema: string): string[] => [
  `alter table "${schema}".outbox drop column if exists claimed_until, drop column if exists trace_context`,
];

const BLANK = `'^[[:space:]]*$'`;

/**
 * Sets empty or whitespace-only text to null in `columns` of `table`, and in the string values of
 * the JSON objects in `objectColumns` (an address), for rows saved before every optional text field
 * treated an empty string as "no value". Values with text stay as they are. Applied migrations call
 * it, so it never changes.
 */
export const blankTextToNullSql = (table: string, { columns = [], objectColumns = [] }: { columns?: string[]; objectColumns?: string[] }): string[] => [
  ...columns.map((column) => `update ${table} set "${column}" = null where "${column}" ~ ${BLANK}`),
  ...objectColumns.map((column) => {
    const blankValue = `jsonb_typeof(entry.value) = 'string' and entry.value #>> '{}' ~ ${BLANK}`;
    return `update ${table} set "${column}" = (
        select jsonb_object_agg(entry.key, case when ${blankValue} then 'null'::jsonb else entry.value end)
        from jsonb_each("${column}") as entry
      )
      where jsonb_typeof("${column}") = 'object' and exists (select 1 from jsonb_each("${column}") as entry where ${blankValue})`;
  }),
];
