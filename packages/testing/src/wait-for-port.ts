import { connect } from 'node:net';

/** Resolves once something accepts connections on the loopback port; throws naming `server` after `timeoutMs`. */
export const waitForPort = async (server: string, port: number, timeoutMs: number): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect({ host: '127.0.0.1', port });
      socket.once('connect', () => socket.end(() => resolve(true)));
      socket.once('error', () => resolve(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${server} did not listen on ${port} within ${timeoutMs} ms`);
};
