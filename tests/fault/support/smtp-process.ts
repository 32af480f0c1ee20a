import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { readReceivedLog, type ReceivedLogLine } from '@invoicing/testing/smtp-test-server';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

/**
 * The SMTP test server (`packages/testing/src/smtp-server-main.ts`) as a process of its own on a
 * fixed port, so a fault test can SIGKILL it and start it again where the senders expect it. Every
 * message it accepts is appended to `logFile` before its 250 answer: the log outlives the process.
 */
export class SmtpServerProcess {
  #child: ChildProcess | undefined;
  readonly port: number;
  readonly logFile: string;

  private constructor(port: number, logFile: string) {
    this.port = port;
    this.logFile = logFile;
  }

  static async launch(port: number, logFile: string): Promise<SmtpServerProcess> {
    const server = new SmtpServerProcess(port, logFile);
    await server.start();
    return server;
  }

  get url(): string {
    return `smtp://127.0.0.1:${this.port}`;
  }

  async start(): Promise<void> {
    const child = spawn(NODE, ['packages/testing/src/smtp-server-main.ts', String(this.port), this.logFile], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    this.#child = child;
    const output: string[] = [];
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the SMTP server did not start: ${output.join('')}`)), 15_000);
      child.stdout!.on('data', (chunk: Buffer) => {
        output.push(chunk.toString());
        if (output.join('').includes('listening')) {
          clearTimeout(timer);
          resolve();
        }
      });
      child.stderr!.on('data', (chunk: Buffer) => output.push(chunk.toString()));
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`the SMTP server exited with ${code}: ${output.join('')}`));
      });
    });
  }

  /** SIGKILL, as a crashed mail host; resolves once it is gone. */
  async kill(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  async killAndRestart(): Promise<void> {
    await this.kill();
    await this.start();
  }

  received(): ReceivedLogLine[] {
    return readReceivedLog(this.logFile);
  }

  async stop(): Promise<void> {
    await this.kill();
  }
}
