// Kept instead of pg-listen (1.7.0, its last release, December 2020; tried against pg 8.23 here and
// a TCP proxy cut in front of PostgreSQL). pg-listen does report reconnection ('reconnect' per
// attempt, 'connected' once it listens again), so the cache could be cleared, but:
// - close() does not stop a reconnection under way: closed during an outage, it went on retrying
//   and, once PostgreSQL was back, opened a new connection and LISTENed on it (one such backend 5 s
//   after close), its timers keeping the process alive;
// - by default it stops reconnecting for good after 3 s of outage (retryTimeout) and only emits
//   'error', leaving revoked keys cached until their TTL; reconnecting forever (retryTimeout: 0)
//   makes the first point endless;
// - its connect() rejects when PostgreSQL is away at start, where the gateway must start anyway.
import type { FastifyBaseLogger } from 'fastify';
import pg from 'pg';

/** The channel the api_keys trigger notifies (migration 20261123000000), payload the key id. */
export const API_KEY_CHANNEL = 'gateway_api_key_changed';

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 10_000;
// A database that accepts the connection but never answers must not hold the gateway's start-up.
const CONNECT_TIMEOUT_MS = 1_500;

export interface ApiKeyChangeListenerOptions {
  url: string;
  log: FastifyBaseLogger;
  onChange: (keyId: string) => void;
  /** Called when the connection is lost: notices may have been missed meanwhile. */
  onReset: () => void;
}

export interface ApiKeyChangeListener {
  close: () => Promise<void>;
}

/**
 * LISTENs for key changes on a dedicated connection (a pooled one would be handed back and stop
 * listening), reconnecting with backoff for as long as the gateway runs.
 */
export const listenForApiKeyChanges = async ({ url, log, onChange, onReset }: ApiKeyChangeListenerOptions): Promise<ApiKeyChangeListener> => {
  let client: pg.Client | undefined;
  let closing = false;
  let retryMs = RETRY_MIN_MS;
  let retryTimer: NodeJS.Timeout | undefined;
  // One line when notices stop and one when they resume, not one per reconnection attempt.
  let interrupted = false;

  const scheduleReconnect = () => {
    if (closing || retryTimer) return;
    retryTimer = setTimeout(() => {
      retryTimer = undefined;
      void connect();
    }, retryMs);
    retryTimer.unref();
    retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
  };

  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: url, connectionTimeoutMillis: CONNECT_TIMEOUT_MS });
    let lost = false;
    const onLost = (error?: Error) => {
      if (lost) return;
      lost = true;
      onReset();
      if (!closing && !interrupted) log.warn({ err: error }, 'API key change notices interrupted; reconnecting with backoff');
      interrupted = true;
      next.removeAllListeners('notification');
      void next.end().catch(() => {});
      scheduleReconnect();
    };
    next.on('error', onLost);
    next.on('end', () => onLost());
    next.on('notification', (message) => {
      if (message.channel === API_KEY_CHANNEL && message.payload) onChange(message.payload);
    });
    try {
      await next.connect();
      await next.query(`listen ${API_KEY_CHANNEL}`);
      client = next;
      retryMs = RETRY_MIN_MS;
      if (interrupted) log.info('API key change notices resumed');
      interrupted = false;
      // Changes made while nobody listened were missed.
      onReset();
    } catch (error) {
      onLost(error as Error);
    }
  };

  await connect();
  return {
    close: async () => {
      closing = true;
      clearTimeout(retryTimer);
      await client?.end().catch(() => {});
    },
  };
};
