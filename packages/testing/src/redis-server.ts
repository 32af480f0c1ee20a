import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.ts';
import { waitForPort } from './wait-for-port.ts';

/** Debian's redis-server, or Valkey's, which speaks the same protocol. */
const BINARIES = ['redis-server', 'valkey-server'];

const findBinary = (): string | undefined => {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/bin', '/usr/sbin', '/usr/local/bin'];
  return BINARIES.flatMap((binary) => dirs.map((dir) => join(dir, binary))).find((candidate) => existsSync(candidate));
};

/**
 * A redis-server on a free loopback port, working in a temporary directory and keeping nothing on
 * disk (no snapshots, no append-only file). `stop` and `start` let fault tests take it away and
 * bring it back, empty, on the same port.
 */
export class RedisServerProcess {
  readonly url: string;
  readonly #port: number;
  readonly #workDir: string;
  readonly #binary: string;
  #child: ChildProcess | undefined;

  private constructor(binary: string, port: number) {
    this.#binary = binary;
    this.#port = port;
    this.#workDir = mkdtempSync(join(tmpdir(), 'redis-test-'));
    this.url = `redis://127.0.0.1:${port}`;
  }

  static async launch(): Promise<RedisServerProcess> {
    const binary = findBinary();
    if (!binary) throw new Error('redis-server is not installed: apt-get install redis-server, or set REDIS_URL');
    const server = new RedisServerProcess(binary, await freePort());
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    const args = ['--port', String(this.#port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', this.#workDir];
    this.#child = spawn(this.#binary, args, { cwd: this.#workDir, stdio: 'ignore' });
    await waitForPort('redis-server', this.#port, 10_000);
  }

  async stop(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    await new Promise<void>((resolve) => {
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
    this.#child = undefined;
  }

  async dispose(): Promise<void> {
    await this.stop();
    rmSync(this.#workDir, { recursive: true, force: true });
  }
}
