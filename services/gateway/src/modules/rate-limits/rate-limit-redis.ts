import type { FastifyBaseLogger } from 'fastify';
import { Redis } from 'ioredis';

/**
 * How long a request waits for its count. Past it the request passes uncounted: a slow Redis must
 * not slow the API down, and the limit is a guard against abuse, not an account.
 */
const COUNT_TIMEOUT_MS = 500;
/** A connection that answers nothing for this long is dropped and made again. */
const SILENT_CONNECTION_MS = 2_000;
/** Longest a start waits for Redis before serving without it. */
const CONNECT_TIMEOUT_MS = 2_000;

export interface RateLimitRedis {
  client: Redis;
  /** Closes the connection, and stops reconnecting, without logging it as lost. */
  close: () => void;
}

/**
 * An ioredis client for the shared rate-limit counters that never holds a request back: commands
 * are not queued while disconnected (they fail at once and the plugin's skipOnError lets the
 * request pass), and one that Redis leaves unanswered fails after COUNT_TIMEOUT_MS. ioredis
 * reconnects by itself, with its default backoff (up to 5 s between attempts).
 *
 * An outage is logged when the connection drops and with its first error, not per request nor
 * per reconnect attempt, and its end once. Resolves when the first connection is ready or has
 * failed, so that a gateway counts from its first request when Redis is up and starts all the
 * same when it is not.
 */
export const connectRateLimitRedis = async (url: string, log: FastifyBaseLogger): Promise<RateLimitRedis> => {
  const client = new Redis(url, {
    connectionName: 'invoicing-gateway-rate-limits',
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: COUNT_TIMEOUT_MS,
    socketTimeout: SILENT_CONNECTION_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
  });
  let connected = false;
  let errorLogged = false;
  let wasLost = false;
  client.on('ready', () => {
    if (wasLost) log.info('rate-limit store (REDIS_URL) answers again: rate limits apply again');
    connected = true;
    errorLogged = false;
  });
  client.on('close', () => {
    if (connected) log.warn('rate-limit store (REDIS_URL) connection lost: requests pass without rate limits until it is back; reconnecting');
    connected = false;
    wasLost = true;
  });
  client.on('error', (error: Error) => {
    if (!errorLogged) log.error({ err: error }, 'rate-limit store (REDIS_URL) unreachable: requests pass without rate limits until it answers; reconnecting');
    errorLogged = true;
    wasLost = true;
  });
  await new Promise<void>((resolve) => {
    const settle = () => {
      client.off('ready', settle);
      client.off('error', settle);
      resolve();
    };
    client.once('ready', settle);
    client.once('error', settle);
  });
  return {
    client,
    close: () => {
      client.removeAllListeners('close');
      client.disconnect();
    },
  };
};
