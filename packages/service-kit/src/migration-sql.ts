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

/** The outbox table `addToOutbox` writes and `OutboxRelay` reads, with the index the relay's claim uses. */
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
