import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { freePort } from '@invoicing/testing';

const ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
const NODE = `${ROOT}node_modules/.bin/node`;

export interface CatalogHeaders {
  workspaceId: string;
  keyId?: string;
}

/**
 * The real catalog service (its `src/main.ts`) as a child process on a free port, on the same
 * database as billing (it owns another schema). Billing's tests seed customers and prices through
 * its API, exactly as the gateway would reach it.
 */
export class CatalogProcess {
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

  static async launch(databaseUrl: string, internalToken: string, { service = 'catalog', port: fixedPort, env = {} }: { service?: string; port?: number; env?: Record<string, string> } = {}): Promise<CatalogProcess> {
    const port = fixedPort ?? (await freePort());
    const child = spawn(NODE, [`services/${service}/src/main.ts`], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', TMPDIR: process.env.TMPDIR ?? '/tmp', DATABASE_URL: databaseUrl, INTERNAL_TOKEN: internalToken, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_POOL_SIZE: '4', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const catalog = new CatalogProcess(`http://127.0.0.1:${port}`, child, internalToken);
    await catalog.#waitUntilReady();
    return catalog;
  }

  async #waitUntilReady(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#child.exitCode !== null) break;
      const ready = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(1_000) }).then((r) => r.ok, () => false);
      if (ready) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await this.stop();
    throw new Error(`service did not become ready:\n${this.#output.join('')}`);
  }

  /** Calls the catalog as the gateway would for this workspace; returns the `data` of a 2xx. */
  async call<T = Record<string, unknown>>(method: string, path: string, { workspaceId, keyId = 'key_test' }: CatalogHeaders, body?: unknown): Promise<T> {
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers: {
        'x-internal-token': this.#token,
        'x-workspace-id': workspaceId,
        'x-api-key-id': keyId,
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const json = (await response.json()) as { data: T };
    if (!response.ok) throw new Error(`catalog ${method} ${path}: ${response.status} ${JSON.stringify(json)}`);
    return json.data;
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
