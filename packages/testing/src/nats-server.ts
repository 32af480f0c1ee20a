import { ServerProcess, type ServerKind } from './server-process.ts';

const NATS: ServerKind = {
  binaries: ['nats-server'],
  url: (port) => `nats://127.0.0.1:${port}`,
  // JetStream keeps its streams in the directory, so a restarted server still has them.
  args: (port, dir) => ['-a', '127.0.0.1', '-p', String(port), '-js', '-sd', dir],
  install: 'apt-get install nats-server, or set NATS_URL',
};

/** A nats-server with JetStream, its storage kept across `stop` and `start`. */
export type NatsServerProcess = ServerProcess;
export const NatsServerProcess = { launch: (): Promise<NatsServerProcess> => ServerProcess.launch(NATS) };
