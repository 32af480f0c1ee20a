import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';

export interface RunServiceOptions {
  app: FastifyInstance;
  host: string;
  port: number;
  /** How long in-flight requests may take to finish on SIGTERM/SIGINT before the process exits. */
  drainMs?: number;
  /** Runs once the app has closed: shared dependencies it did not own, such as the event bus. */
  onClosed?: () => Promise<void>;
}

/** Listens, and on SIGINT/SIGTERM stops taking connections, drains, and closes dependencies (onClose hooks). */
export const runService = async ({ app, host, port, drainMs = 10_000, onClosed }: RunServiceOptions): Promise<void> => {
  closeWithGrace({ delay: drainMs }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await onClosed?.();
  });
  await app.listen({ host, port });
};
