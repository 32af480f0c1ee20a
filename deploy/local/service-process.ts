import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { INTERNAL_HEADERS, repositoryRoot } from '@invoicing/service-kit';

/** Receives every line a child writes, stdout and stderr alike. */
export type LineSink = (name: string, line: string) => void;

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** Node 24 from the `node` devDependency: the machine's own node is older. */
export const NODE = `${repositoryRoot()}node_modules/.bin/node`;
const TAIL_LINES = 40;

export const describeExit = ({ code, signal }: Exit): string => (signal ? `signal ${signal}` : `code ${code}`);

/** Prints a child's lines to our stdout, each behind its padded name. */
export const prefixedSink =
  (width: number): LineSink =>
  (name, line) => {
    process.stdout.write(`${name.padEnd(width)} | ${line}\n`);
  };

export interface ChildScriptOptions {
  name: string;
  /** Path from the repository root. */
  script: string;
  env: NodeJS.ProcessEnv;
  sink?: LineSink | undefined;
  /**
   * In its own process group (default), a Ctrl-C in the terminal does not reach it beside our
   * SIGTERM: close-with-grace exits at once on a second signal, cutting the drain short.
   */
  detached?: boolean;
}

/**
 * A Node script of this repository run as a child process with Node 24, its output fed line by
 * line to a sink, and the last lines kept so a failure can show why.
 */
export class ChildScript {
  readonly name: string;
  readonly exited: Promise<Exit>;
  readonly #child: ChildProcess;
  readonly #tail: string[] = [];
  readonly #detached: boolean;
  readonly #printed: boolean;

  constructor({ name, script, env, sink, detached = true }: ChildScriptOptions) {
    this.name = name;
    this.#detached = detached;
    this.#printed = sink !== undefined;
    this.#child = spawn(NODE, [script], { cwd: repositoryRoot(), env, detached, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const stream of [this.#child.stdout, this.#child.stderr]) {
      createInterface({ input: stream!, crlfDelay: Infinity }).on('line', (line) => {
        this.#tail.push(line);
        if (this.#tail.length > TAIL_LINES) this.#tail.shift();
        sink?.(name, line);
      });
    }
    this.exited = new Promise((resolve) => {
      this.#child.once('error', () => resolve({ code: null, signal: null }));
      this.#child.once('close', (code, signal) => resolve({ code, signal }));
    });
  }

  get pid(): number | undefined {
    return this.#child.pid;
  }

  get running(): boolean {
    return this.#child.exitCode === null && this.#child.signalCode === null;
  }

  /** Whether one of its last lines holds `text`, whether or not a sink has shown them. */
  tailIncludes(text: string): boolean {
    return this.#tail.some((line) => line.includes(text));
  }

  /** The last lines it wrote, for error messages, unless a sink has shown them already. */
  tail(): string {
    if (this.#printed) return 'See its lines above.';
    return `Its last lines:\n${this.#tail.map((line) => `    ${line}`).join('\n')}`;
  }

  /** SIGTERM once, so it drains; SIGKILL to its whole group if it has not exited after `graceMs`. */
  async stop(graceMs = 15_000): Promise<Exit> {
    if (this.running) this.#signal('SIGTERM');
    const timer = setTimeout(() => this.#signal('SIGKILL'), graceMs);
    const exit = await this.exited;
    clearTimeout(timer);
    return exit;
  }

  #signal(signal: NodeJS.Signals): void {
    try {
      process.kill(this.#detached && signal === 'SIGKILL' ? -this.#child.pid! : this.#child.pid!, signal);
    } catch {
      // already gone
    }
  }
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A service could not have its port: another process holds it (the service exited with
 * EADDRINUSE, or what answers there is another platform's, with another INTERNAL_TOKEN). A
 * launcher that chose the port itself may choose again.
 */
/** A readiness answer of one of our services: `{"status":"ready"}`. */
const isReadyAnswer = (body: string): boolean => {
  try {
    return (JSON.parse(body) as { status?: unknown } | null)?.status === 'ready';
  } catch {
    return false;
  }
};

export class PortTakenError extends Error {
  override name = 'PortTakenError';
}

/** A service's `src/main.ts` listening on a known port. */
export class ServiceProcess extends ChildScript {
  readonly url: string;
  readonly port: number;
  readonly #internalToken: string | undefined;

  constructor(name: string, port: number, env: NodeJS.ProcessEnv, sink?: LineSink) {
    super({ name, script: `services/${name}/src/main.ts`, env, sink });
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.#internalToken = env.INTERNAL_TOKEN;
  }

  /** Resolves once `/readyz` answers 200; rejects with its last log lines if it exits or takes too long. */
  async waitUntilReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let exit: Exit | undefined;
    void this.exited.then((value) => (exit = value));
    // With the run's token, so that a service of another run on this port (401) is not taken for ours.
    const headers = this.#internalToken ? { [INTERNAL_HEADERS.token]: this.#internalToken } : undefined;
    while (Date.now() < deadline) {
      if (exit) {
        const failure = `${this.name} exited with ${describeExit(exit)} while starting. ${this.tail()}`;
        throw this.tailIncludes(`port ${this.port} is already in use`) ? new PortTakenError(failure) : new Error(failure);
      }
      const { status, ready } = await fetch(`${this.url}/readyz`, { headers, signal: AbortSignal.timeout(2_000) }).then(
        async (response) => ({ status: response.status, ready: isReadyAnswer(await response.text().catch(() => '')) }),
        () => ({ status: 0, ready: false }),
      );
      if (status === 401) throw new PortTakenError(`${this.url} answers for another platform (another INTERNAL_TOKEN), not for ${this.name}.`);
      if (status >= 200 && status < 300) {
        if (ready) return;
        // Our services answer {"status":"ready"}; any other program answering there holds the port.
        throw new PortTakenError(`${this.url}/readyz answers ${status}, but not as a service of this platform: another program holds port ${this.port}.`);
      }
      await delay(100);
    }
    throw new Error(`${this.name} did not answer ${this.url}/readyz within ${timeoutMs} ms. ${this.tail()}`);
  }
}
