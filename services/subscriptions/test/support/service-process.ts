import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@invoicing/testing';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

/**
 * Another service of the platform (its `src/main.ts`) as a child process on a free port, on the
 * test's database: the subscriptions tests reach the real catalog and billing over HTTP, as the
 * service does in production.
 */
export class ServiceProcess {
  readonly url: string;
  readonly #child: ChildProcess;
  readonly #token: string;
  readonly #exited: Promise<void>;
  readonly #output: string[] = [];

  private constructor(url: string, child: ChildProcess, token: string) {
    this.url = url;
    this.#child = child;
    this.#token = token;
    child.stdout?.on('data', (chunk: Buffer) => this.#output.push(chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => this.#output.push(chunk.toString()));
    this.#exited = new Promise((resolve) => child.once('exit', () => resolve()));
  }

  static async launch(name: string, databaseUrl: string, internalToken: string, env: Record<string, string> = {}): Promise<ServiceProcess> {
    const port = await freePort();
    const child = spawn(NODE, [`services/${name}/src/main.ts`], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl, INTERNAL_TOKEN: internalToken, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '4', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new ServiceProcess(`http://127.0.0.1:${port}`, child, internalToken);
    await service.#waitUntilReady(name);
    return service;
  }

  async #waitUntilReady(name: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#child.exitCode !== null) break;
      const ready = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await this.stop();
    throw new Error(`${name} did not become ready:\n${this.#output.join('')}`);
  }

  /** Calls the service as the gateway would for this workspace; answers status and body. */
  async call<T = any>(method: string, path: string, workspaceId: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: T }> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        'x-internal-token': this.#token,
        'x-workspace-id': workspaceId,
        'x-api-key-id': 'key_test',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...headers,
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as T };
  }

  /** The `data` of a 2xx answer; anything else throws. */
  async data<T = any>(method: string, path: string, workspaceId: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const { status, body: json } = await this.call<{ data: T }>(method, path, workspaceId, body, headers);
    if (status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
    return json.data;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
