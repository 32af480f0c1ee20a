import { freePort } from '@invoicing/testing';
import Fastify from 'fastify';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: Record<string, string | string[] | undefined>;
  body: unknown;
}

export interface UpstreamAnswer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
  delayMs?: number;
}

type Answer = (request: ReceivedRequest) => UpstreamAnswer;

/**
 * A real HTTP server standing in for a service behind the gateway: it records what reached it
 * and answers as the test says (by default 200 with what it received).
 */
export const startUpstreamRecorder = async () => {
  const received: ReceivedRequest[] = [];
  let answer: Answer = (request) => ({ status: 200, body: { data: { method: request.method, url: request.url } } });
  const server = Fastify();
  // The raw body, exactly as it arrived.
  server.removeAllContentTypeParsers();
  server.addContentTypeParser('*', { parseAs: 'string' }, (_request, body, done) => done(null, body));
  server.get('/readyz', async () => ({ status: 'ready' }));
  server.all('/*', async (request, reply) => {
    const entry = { method: request.method, url: request.url, headers: { ...request.headers }, body: request.body };
    received.push(entry);
    const { status, body, headers, delayMs } = answer(entry);
    if (delayMs) await new Promise((resolve) => setTimeout(resolve, delayMs));
    return reply.code(status).headers(headers ?? {}).send(body);
  });
  const port = await freePort();
  await server.listen({ host: '127.0.0.1', port });
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    answerWith: (next: Answer) => {
      answer = next;
    },
    close: () => server.close(),
  };
};

export type UpstreamRecorder = Awaited<ReturnType<typeof startUpstreamRecorder>>;
