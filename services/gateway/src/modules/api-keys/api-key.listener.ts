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
