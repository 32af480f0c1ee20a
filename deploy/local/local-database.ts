import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureDatabaseExists } from '@invoicing/service-kit';
import type { DatabaseSettings } from './config.ts';

export interface LocalDatabase {
  url: string;
  /** Where it runs, for the start-up banner. */
  description: string;
  /** Stops the embedded PostgreSQL if this run started it; a DATABASE_URL server is left alone. */
  stop: () => Promise<void>;
}

type KeeperMessage = { url: string } | { error: string };

const KEEPER = fileURLToPath(new URL('./database-keeper.ts', import.meta.url));

/**
 * The database of a local run: DATABASE_URL when set, else the embedded PostgreSQL under DATA_DIR.
 * The embedded one is held by a keeper process in its own process group, so a Ctrl-C in the
 * terminal reaches the services (which drain) but not PostgreSQL, which stops only after them;
 * and if this process dies without cleaning up, the keeper notices and stops PostgreSQL.
 */
export const openLocalDatabase = async (settings: DatabaseSettings, env: NodeJS.ProcessEnv): Promise<LocalDatabase> => {
  if (settings.DATABASE_URL) {
    return { url: settings.DATABASE_URL, description: 'PostgreSQL at DATABASE_URL', stop: async () => {} };
  }
  const keeper = fork(KEEPER, [JSON.stringify({ DATA_DIR: settings.DATA_DIR, EMBEDDED_POSTGRES_PORT: settings.EMBEDDED_POSTGRES_PORT })], { detached: true, stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env });
  const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
  const answer = await new Promise<KeeperMessage>((resolve) => {
    keeper.once('message', (message) => resolve(message as KeeperMessage));
    keeper.once('exit', (code) => resolve({ error: `the database keeper exited with code ${code}` }));
  });
  if ('error' in answer) {
    throw new Error(`Could not start the embedded PostgreSQL under ${settings.DATA_DIR}: ${answer.error}`);
  }
  // Created here, once: on a new DATA_DIR the services would otherwise race to create it, and
  // PostgreSQL answers the loser of two concurrent CREATE DATABASE with a unique violation.
  await ensureDatabaseExists(answer.url).catch(async (error: unknown) => {
    keeper.disconnect();
    await exited;
    throw error;
  });
  return {
    url: answer.url,
    description: `embedded PostgreSQL under ${settings.DATA_DIR} (port ${settings.EMBEDDED_POSTGRES_PORT})`,
    stop: async () => {
      if (keeper.connected) keeper.disconnect();
      await exited;
    },
  };
};
