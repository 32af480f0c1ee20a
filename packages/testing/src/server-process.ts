import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.ts';
import { waitForPort } from './wait-for-port.ts';

/** How to run one kind of server the tests need from the machine's packages. */
export interface ServerKind {
  /** Binaries to look for, first found wins, on the PATH and in the system's binary folders. */
  binaries: readonly string[];
  /** The URL clients use for a server on `port`. */
  url: (port: number) => string;
  /** Its command line, listening on loopback `port` and working in `dir`. */
  args: (port: number, dir: string) => string[];
  /** What to tell someone whose machine lacks it. */
  install: string;
}

const SYSTEM_DIRS = ['/usr/bin', '/usr/sbin', '/usr/local/bin', '/usr/local/sbin'];

const findBinary = (binaries: readonly string[]): string | undefined => {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), ...SYSTEM_DIRS];
  return binaries.flatMap((binary) => dirs.map((dir) => join(dir, binary))).find((candidate) => existsSync(candidate));
};

/**
 * A server from the machine's packages on a free loopback port, working in a temporary directory.
 * `stop` and `start` let fault tests take it away and bring it back on the same port and directory.
 */
export class ServerProcess {
  readonly url: string;
  readonly #kind: ServerKind;
  readonly #binary: string;
  readonly #port: number;
  readonly #dir: string;
  #child: ChildProcess | undefined;

  private constructor(kind: ServerKind, binary: string, port: number) {
    this.#kind = kind;
    this.#binary = binary;
    this.#port = port;
    this.#dir = mkdtempSync(join(tmpdir(), `${kind.binaries[0]}-test-`));
    this.url = kind.url(port);
  }

  static async launch(kind: ServerKind): Promise<ServerProcess> {
    const binary = findBinary(kind.binaries);
    if (!binary) throw new Error(`${kind.binaries[0]} is not installed: ${kind.install}`);
    const server = new ServerProcess(kind, binary, await freePort());
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    this.#child = spawn(this.#binary, this.#kind.args(this.#port, this.#dir), { cwd: this.#dir, stdio: 'ignore' });
    await waitForPort(this.#kind.binaries[0]!, this.#port, 10_000);
  }

  /** `SIGKILL`: as the kernel's OOM killer or a node failure would, without a chance to flush or say goodbye. */
  async stop(signal: 'SIGTERM' | 'SIGKILL' = 'SIGTERM'): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill(signal);
    });
    this.#child = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#dir, { recursive: true, force: true });
  }
}
