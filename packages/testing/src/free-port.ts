import { createServer } from 'node:net';

/** A TCP port on loopback that nothing listens on right now. */
export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

const canListenOn = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * How many ports after SERVICE_PORT_BASE `npm start` may take: every service behind the gateway
 * (deploy/local/services.ts, whose test keeps them within this), with room for the next ones.
 */
export const LOCAL_SERVICE_PORTS = 8;

/** A port whose `following` next ports are free too: a SERVICE_PORT_BASE for `npm start`, which puts the services right after it. */
export const freePortBase = async (following = LOCAL_SERVICE_PORTS): Promise<number> => {
  for (let attempt = 0; attempt < 20; attempt++) {
    const base = (await freePort()) - 1;
    const ports = Array.from({ length: following }, (_, index) => base + 1 + index);
    if ((await Promise.all(ports.map(canListenOn))).every(Boolean)) return base;
  }
  throw new Error(`found no run of ${following + 1} free ports`);
};
