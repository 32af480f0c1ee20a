import { createServer, request as forward, Agent, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A service's whole answer, as the interposer read it before deciding what to do with it. */
export interface HeldAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface InterposedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
}

interface Trap {
  matches: (request: InterposedRequest) => boolean;
  /** Runs once the request has arrived; the service gets it only when this resolves (a request still on its way when the gateway died). */
  beforeForward?: () => Promise<void>;
  /** Runs once the service has answered (so its transaction has committed), before anything is relayed. */
  beforeRelay: (answer: HeldAnswer) => Promise<void>;
  sprung: (answer: HeldAnswer) => void;
}

const readAll = async (stream: IncomingMessage): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};

/**
 * An HTTP hop between the gateway and one service. It relays every request unchanged, except one
 * it was told to trap: that one reaches the service, the service answers (and has committed),
 * then the trap's action runs (kill the gateway) and the answer is never relayed. So the fault
 * "the gateway died between the service's commit and recording its outcome" happens every time,
 * not by luck of timing. A broken upstream connection breaks the downstream one too, as it would
 * without the hop in between.
 */
export const startInterposer = async (targetOrigin: string) => {
  const target = new URL(targetOrigin);
  const agent = new Agent({ keepAlive: true, maxSockets: 256 });
  const traps: Trap[] = [];

  const relay = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const body = await readAll(incoming);
    const interposed: InterposedRequest = { method: incoming.method ?? 'GET', path: incoming.url ?? '/', headers: incoming.headers };
    const trapIndex = traps.findIndex((trap) => trap.matches(interposed));
    const trap = trapIndex >= 0 ? traps.splice(trapIndex, 1)[0] : undefined;
    await trap?.beforeForward?.();
    const upstream = forward({
      agent,
      host: target.hostname,
      port: target.port,
      method: interposed.method,
      path: interposed.path,
      headers: { ...incoming.headers, host: target.host },
    });
    upstream.on('error', () => incoming.socket.destroy());
    upstream.on('response', async (answer) => {
      let answerBody: Buffer;
      try {
        answerBody = await readAll(answer);
      } catch {
        incoming.socket.destroy();
        return;
      }
      if (trap) {
        const held = { status: answer.statusCode ?? 0, headers: answer.headers, body: answerBody.toString('utf8') };
        try {
          await trap.beforeRelay(held);
        } finally {
          incoming.socket.destroy();
          trap.sprung(held);
        }
        return;
      }
      const headers = { ...answer.headers };
      delete headers['transfer-encoding'];
      headers['content-length'] = String(answerBody.length);
      outgoing.writeHead(answer.statusCode ?? 502, headers).end(answerBody);
    });
    upstream.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    relay(incoming, outgoing).catch(() => incoming.socket.destroy());
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    /**
     * Traps the next request that `matches`: the service answers it, `beforeRelay` runs, and the
     * answer is dropped. Resolves with the answer the client never saw. With `beforeForward`, the
     * request reaches the service only once that resolves, whatever became of the gateway meanwhile.
     */
    trapNext: (matches: Trap['matches'], beforeRelay: Trap['beforeRelay'], { beforeForward }: Pick<Trap, 'beforeForward'> = {}): Promise<HeldAnswer> =>
      new Promise((sprung) => traps.push({ matches, beforeRelay, beforeForward, sprung })),
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      agent.destroy();
    },
  };
};
export type Interposer = Awaited<ReturnType<typeof startInterposer>>;
