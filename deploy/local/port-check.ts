import { createServer } from 'node:net';

export interface PortClaim {
  host: string;
  port: number;
  /** The setting that moves it, named in the message when the port is taken. */
  setting: string;
}

const canListen = ({ host, port }: PortClaim): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ host, port, exclusive: true }, () => server.close(() => resolve(true)));
  });

/**
 * The first claim whose port another process holds, as the one line `npm start` ends with;
 * undefined when all are free. Checked before anything starts, so a second `npm start` says at
 * once what is in the way instead of starting half a platform.
 */
export const describeTakenPort = async (claims: readonly PortClaim[]): Promise<string | undefined> => {
  for (const claim of claims) {
    if (!(await canListen(claim))) return `port ${claim.port} is already in use (set ${claim.setting} to use another)`;
  }
  return undefined;
};
