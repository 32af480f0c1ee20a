import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from './free-port.ts';

/**
 * A TCP forwarder on a free loopback port in front of a real server, for tests that take a
 * dependency away without stopping it (others share it): `cut()` destroys every connection and
 * stops listening, so new connections are refused (ECONNREFUSED, as when the server is down);
 * `restore()` listens again on the same port.
 */
export class TcpProxy {
  readonly port: number;
  readonly #target: { host: string; port: number };
  readonly #sockets = new Set<Socket>();
  #server: Server | undefined;

  private constructor(port: number, target: { host: string; port: number }) {
    this.port = port;
    this.#target = target;
  }

  /** Starts forwarding `127.0.0.1:<free port>` to `target`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const proxy = new TcpProxy(await freePort(), target);
    await proxy.restore();
    return proxy;
  }

  /** `url` with its host and port replaced by the proxy's, e.g. a database URL. */
  rewrite(url: string): string {
    const rewritten = new URL(url);
    rewritten.hostname = '127.0.0.1';
    rewritten.port = String(this.port);
    return rewritten.toString();
  }

  /** Listens again (no-op when already listening). */
  async restore(): Promise<void> {
    if (this.#server) return;
    const server = createServer((client) => this.#forward(client));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.#server = server;
  }

  /** Destroys every open connection and refuses new ones until `restore()`. */
  async cut(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    for (const socket of this.#sockets) socket.destroy();
    this.#sockets.clear();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  async close(): Promise<void> {
    await this.cut();
  }

  #forward(client: Socket): void {
    const upstream = createConnection(this.#target);
    for (const socket of [client, upstream]) {
      this.#sockets.add(socket);
      // Either side failing ends the pair, as a broken network path would.
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
      socket.on('close', () => {
        this.#sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    upstream.pipe(client);
  }
}
