import type { IncomingMessage } from 'node:http';
import type { preHandlerAsyncHookHandler } from 'fastify';

const readToEnd = (raw: IncomingMessage): Promise<void> =>
  raw.readableEnded || raw.destroyed
    ? Promise.resolve()
    : new Promise((resolve) => {
        raw.once('end', resolve).once('close', resolve).resume();
      });

/**
 * Before any answer, the client has sent the whole request: a body nobody reads (a GET's or
 * HEAD's, which Fastify does not parse, or a keyed write's empty one) is read and dropped. Two
 * reasons:
 * - an answer sent while the client is still uploading makes Node close the connection after it,
 *   and the bytes still arriving then reset that connection, which can cut the answer short at
 *   the client (a public page answered to a GET carrying 600 kB, in the contract fuzz);
 * - reply-from drops the answer to a request whose client left, and a request whose body nobody
 *   read counts as left: a keyed write's answer would not be recorded.
 * A client that never finishes is cut off by the server's request timeout (408).
 */
export const readUnreadBody: preHandlerAsyncHookHandler = async (request) => {
  await readToEnd(request.raw);
};
