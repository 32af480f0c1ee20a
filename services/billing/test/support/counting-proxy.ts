import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * An HTTP proxy in front of a service that counts the requests it forwards, by path: how a test
 * sees how often billing calls the catalog. Methods, headers, bodies and answers pass unchanged.
 */
export const startCountingProxy = async (target: string) => {
  const requests: string[] = [];
  const bodyOf = async (request: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    return chunks.length ? Buffer.concat(chunks) : undefined;
  };
  const server = createServer(async (request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const headers = Object.fromEntries(Object.entries(request.headers).filter(([name, value]) => typeof value === 'string' && name !== 'host' && name !== 'connection')) as Record<string, string>;
    const body = await bodyOf(request);
    const answer = await fetch(`${target}${request.url}`, { method: request.method!, headers, ...(body ? { body } : {}) });
    response.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    response.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** The requests forwarded since the last `reset`, as `GET /api/v1/customers/…`. */
    requests: () => [...requests],
    reset: () => void requests.splice(0),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
};
