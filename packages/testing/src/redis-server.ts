import { ServerProcess, type ServerKind } from './server-process.ts';

const REDIS: ServerKind = {
  // Debian's redis-server, or Valkey's, which speaks the same protocol.
  binaries: ['redis-server', 'valkey-server'],
  url: (port) => `redis://127.0.0.1:${port}`,
  // Nothing on disk (no snapshots, no append-only file): a restarted server comes back empty.
  args: (port, dir) => ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir],
  install: 'apt-get install redis-server, or set REDIS_URL',
};

/** A redis-server that keeps nothing on disk. */
export type RedisServerProcess = ServerProcess;
export const RedisServerProcess = { launch: (): Promise<RedisServerProcess> => ServerProcess.launch(REDIS) };
