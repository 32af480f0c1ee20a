import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  at: number;
}

/** How the receiver answers one request: a status (with headers and body), or no answer at all. */
export type Answer = { status: number; headers?: Record<string, string>; body?: string } | 'hang';

const header = (headers: IncomingHttpHeaders, name: string): string => {
  const value = headers[name];
  return Array.isArray(value) ? value.join(', ') : (value ?? '');
};

/** The payload if the webhook verifies with `secret` (Standard Webhooks library), else throws. */
export const verifyWebhook = (webhook: ReceivedWebhook, secret: string): unknown =>
  new Webhook(secret).verify(webhook.body, {
    'webhook-id': header(webhook.headers, 'webhook-id'),
    'webhook-timestamp': header(webhook.headers, 'webhook-timestamp'),
    'webhook-signature': header(webhook.headers, 'webhook-signature'),
  });

/**
 * A webhook receiver on a loopback port, as a customer would run one: it records every request
 * and answers as the test says (200 by default).
 */
export const startReceiver = async () => {
  const received: ReceivedWebhook[] = [];
  const held: ServerResponse[] = [];
  let answer: (webhook: ReceivedWebhook) => Answer = () => ({ status: 200 });
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const webhook = { path: request.url ?? '/', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      received.push(webhook);
      const reply = answer(webhook);
      if (reply === 'hang') {
        held.push(response);
        return;
      }
      response.writeHead(reply.status, reply.headers ?? {});
      response.end(reply.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    port,
    received,
    /** A URL on this receiver; each test uses its own path. */
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    at: (path: string) => received.filter((webhook) => webhook.path === path),
    answerWith: (next: (webhook: ReceivedWebhook) => Answer) => {
      answer = next;
    },
    /** Polls until `condition` holds; fails after `timeoutMs`. */
    waitFor: async (condition: () => boolean, timeoutMs = 20_000, what = 'the webhooks expected') => {
      const deadline = Date.now() + timeoutMs;
      while (!condition()) {
        if (Date.now() > deadline) throw new Error(`${what} did not arrive within ${timeoutMs} ms (received ${received.length})`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    close: async () => {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};
export type Receiver = Awaited<ReturnType<typeof startReceiver>>;
