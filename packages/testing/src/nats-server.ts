import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { freePort } from './free-port.ts';
import { waitForPort } from './wait-for-port.ts';

const findBinary = (): string | undefined => {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin'];
  return dirs.map((dir) => join(dir, 'nats-server')).find((candidate) => existsSync(candidate));
};

/**
 * A nats-server with JetStream in a temporary directory, on a free port. `stop` and `start`
 * let fault tests take it away and bring it back on the same port with the same storage.
 */
export class NatsServerProcess {
  readonly url: string;
  readonly #port: number;
  readonly #storeDir: string;
  readonly #binary: string;
  #child: ChildProcess | undefined;

  private constructor(binary: string, port: number) {
    this.#binary = binary;
    this.#port = port;
    this.#storeDir = mkdtempSync(join(tmpdir(), 'nats-test-'));
    this.url = `nats://127.0.0.1:${port}`;
  }

  static async launch(): Promise<NatsServerProcess> {
    const binary = findBinary();
    if (!binary) throw new Error('nats-server is not installed: apt-get install nats-server, or set NATS_URL');
    const server = new NatsServerProcess(binary, await freePort());
    await server.start();
    return server;
  }

  async start(): Promise<void> {
    this.#child = spawn(this.#binary, ['-a', '127.0.0.1', '-p', String(this.#port), '-js', '-sd', this.#storeDir], { stdio: 'ignore' });
    await waitForPort('nats-server', this.#port, 10_000);
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
    rmSync(this.#storeDir, { recursive: true, force: true });
  }
}
