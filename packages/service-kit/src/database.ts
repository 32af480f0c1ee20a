import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';

export type Orm = MikroORM;

export interface DatabaseOptions {
  url: string;
  /** The PostgreSQL schema this service owns; no other service reads it. */
  schema: string;
  entities: NonNullable<Options['entities']>;
  migrations: NonNullable<NonNullable<Options['migrations']>['migrationsList']>;
  poolSize: number;
}

/** Opens the service's ORM on its own schema. Migrations are listed explicitly, never guessed from entities. */
export const openDatabase = ({ url, schema, entities, migrations, poolSize }: DatabaseOptions): Promise<Orm> =>
  MikroORM.init(
    defineConfig({
      clientUrl: url,
      schema,
      // MikroORM keeps request and transaction contexts per name: services hosted in one process
      // (npm start) must not find each other's entity manager there.
      contextName: schema,
      entities,
      extensions: [Migrator],
      pool: { min: 0, max: poolSize },
      forceUtcTimezone: true,
      // A service may do all its work in SQL (a relay, a worker) and declare no entity.
      discovery: { warnWhenNoEntities: false },
      migrations: { schema, tableName: 'mikro_orm_migrations', migrationsList: migrations, snapshot: false, silent: true },
    }),
  );

const withClient = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
};

/** Creates the database named in `url` when it does not exist yet (first start on a fresh server). */
export const ensureDatabaseExists = async (url: string): Promise<void> => {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.slice(1));
  const maintenance = new URL(url);
  maintenance.pathname = '/postgres';
  await withClient(maintenance.toString(), async (client) => {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (rowCount) return;
    try {
      await client.query(`create database "${name.replaceAll('"', '""')}"`);
    } catch (error) {
      // Another process created it between our check and our create.
      if ((error as { code?: string }).code !== '42P04') throw error;
    }
  });
};

/**
 * Applies the service's pending migrations. An advisory lock per schema makes concurrent
 * replicas wait for one another instead of racing.
 */
export const migrateDatabase = async (orm: Orm, schema: string, url: string): Promise<void> => {
  await withClient(url, async (client) => {
    await client.query('select pg_advisory_lock(hashtext($1))', [`migrate:${schema}`]);
    try {
      await client.query(`create schema if not exists "${schema}"`);
      await orm.migrator.up();
    } finally {
      await client.query('select pg_advisory_unlock(hashtext($1))', [`migrate:${schema}`]);
    }
  });
};

/** Throws when the database does not answer; readiness probes use it. */
export const pingDatabase = async (orm: Orm): Promise<void> => {
  await orm.em.getConnection().execute('select 1');
};

/** Applies a service's pending migrations with a short-lived ORM of one connection (`npm run migrate`). */
export const applyMigrations = async (url: string, schema: string, open: (url: string, poolSize: number) => Promise<Orm>): Promise<void> => {
  await ensureDatabaseExists(url);
  const orm = await open(url, 1);
  try {
    await migrateDatabase(orm, schema, url);
  } finally {
    await orm.close();
  }
};
