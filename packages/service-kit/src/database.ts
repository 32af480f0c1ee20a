import { MikroORM, defineConfig, type Options } from '@mikro-orm/postgresql';
import { Migrator } from '@mikro-orm/migrations';
import pg from 'pg';
import { withKitEntities } from './kit-entities.ts';
import { DATABASE_SETUP_SQL } from './migration-sql.ts';
import { isConnectionError } from './problem.ts';
import { sqlOf } from './typed-sql.ts';

export type Orm = MikroORM;

export interface DatabaseOptions {
  url: string;
  /** The PostgreSQL schema this service owns; no other service reads it. */
  schema: string;
  /** The service's entities; the kit adds those of its own tables (see `withKitEntities`). */
  entities: NonNullable<Options['entities']>;
  migrations: NonNullable<NonNullable<Options['migrations']>['migrationsList']>;
  poolSize: number;
}

/**
 * Longest wait for a new connection to PostgreSQL: with PostgreSQL away, a request fails with a
 * 503 within this time instead of hanging until the operating system gives up on the connect.
 */
export const DATABASE_CONNECT_TIMEOUT_MS = 1_500;

/**
 * Longest wait for a free connection of the pool. Apart from the connect timeout, so that a busy but
 * healthy database queues requests (a burst of clients larger than the pool) instead of failing them
 * with 503s after 1.5 s; a request that needs a new connection still fails within the connect timeout.
 */
export const DATABASE_ACQUIRE_TIMEOUT_MS = 10_000;

/** pg-pool gives its own timeout to every client it makes; this one keeps the connect's short. */
class BrieflyConnectingClient extends pg.Client {
  constructor(config: pg.ClientConfig) {
    // The pool keeps the password as a hidden property, which a spread would drop.
    super({ ...config, password: config.password, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  }
}

/** `database at host:port`: how every message names the database, without its credentials. */
export const describeDatabase = (url: string): string => {
  const { hostname, port } = new URL(url);
  return `database at ${hostname}:${port || '5432'}`;
};

/** PostgreSQL could not be reached (down, restarting, refusing connections): worth retrying, not a bug. */
export class DatabaseUnavailableError extends Error {
  /** The cause's code (ECONNREFUSED, 57P03, ...), so the problem handler maps it to a 503 like the cause. */
  readonly code: string | undefined;

  constructor(url: string, cause: unknown) {
    const { code, message } = cause as { code?: string; message?: string };
    // An errno names the cause on its own; a PostgreSQL message ("the database system is starting up") says more than its SQLSTATE.
    const reason = code && /^E[A-Z]+$/.test(code) ? code : (message ?? String(cause));
    super(`${describeDatabase(url)} unreachable: ${reason}`, { cause });
    this.name = 'DatabaseUnavailableError';
    this.code = code;
  }
}

/** Runs `work`, turning a connection failure into a DatabaseUnavailableError that names the database. */
const describingFailures = async <T>(url: string, work: () => Promise<T>): Promise<T> => {
  try {
    return await work();
  } catch (error) {
    throw isConnectionError(error) && !(error instanceof DatabaseUnavailableError) ? new DatabaseUnavailableError(url, error) : error;
  }
};

/**
 * Opens the service's ORM on its own schema. Migrations are listed explicitly, never guessed from
 * entities. It connects lazily: opening succeeds while PostgreSQL is away, and queries fail until it returns.
 */
export const openDatabase = ({ url, schema, entities, migrations, poolSize }: DatabaseOptions): Promise<Orm> =>
  MikroORM.init(
    defineConfig({
      clientUrl: url,
      schema,
      // MikroORM keeps request and transaction contexts per name: services hosted in one process
      // (npm start) must not find each other's entity manager there.
      contextName: schema,
      entities: withKitEntities(entities),
      extensions: [Migrator],
      pool: { min: 0, max: poolSize },
      // pg-pool options (its connectionTimeoutMillis bounds the wait for a free connection). Errors of
      // idle clients are MikroORM's to catch (it listens on the pool and its clients).
      driverOptions: { connectionTimeoutMillis: DATABASE_ACQUIRE_TIMEOUT_MS, keepAlive: true, Client: BrieflyConnectingClient },
      forceUtcTimezone: true,
      migrations: { schema, tableName: 'mikro_orm_migrations', migrationsList: migrations, snapshot: false, silent: true },
    }),
  );

const withClient = async <T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: DATABASE_CONNECT_TIMEOUT_MS });
  // A connection lost between queries is reported by the next query; unheard, the event would end the process.
  client.on('error', () => {});
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
    const { rowCount } = await client.query(DATABASE_SETUP_SQL.databaseExists, [name]);
    if (rowCount) return;
    try {
      await client.query(DATABASE_SETUP_SQL.createDatabase(name));
    } catch (error) {
      // Another process created it between our check and our create: PostgreSQL says so with
      // 42P04, or, when both creates ran at once, with the catalog's unique index (23505).
      if (!['42P04', '23505'].includes((error as { code?: string }).code ?? '')) throw error;
    }
  });
};

/**
 * Applies the service's pending migrations. An advisory lock per schema makes concurrent
 * replicas wait for one another instead of racing.
 */
export const migrateDatabase = async (orm: Orm, schema: string, url: string): Promise<void> => {
  await withClient(url, async (client) => {
    await client.query(DATABASE_SETUP_SQL.lockMigrations, [`migrate:${schema}`]);
    try {
      await client.query(DATABASE_SETUP_SQL.createSchema(schema));
      await orm.migrator.up();
    } finally {
      await client.query(DATABASE_SETUP_SQL.unlockMigrations, [`migrate:${schema}`]);
    }
  });
};

/**
 * Creates the database if missing, then applies the service's pending migrations: every step of a
 * start that needs PostgreSQL. Safe to repeat, so a host retries it while the database is away
 * (a connection failure throws DatabaseUnavailableError; anything else is for a person to fix).
 */
export const prepareDatabase = (orm: Orm, schema: string, url: string): Promise<void> =>
  describingFailures(url, async () => {
    await ensureDatabaseExists(url);
    await migrateDatabase(orm, schema, url);
  });

/** Throws when the database does not answer, naming it and why; readiness probes use it. */
export const pingDatabase = (orm: Orm): Promise<void> =>
  describingFailures(orm.config.get('clientUrl') ?? '', async () => {
    await sqlOf(orm.em)
      .selectNoFrom((eb) => eb.lit(1).as('one'))
      .execute();
  });

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
