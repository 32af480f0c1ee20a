import { connect, type NatsConnection } from '@nats-io/transport-node';

export interface NatsConnectionKeeperOptions<Link> {
  url: string;
  /** Connection name shown by the server, such as the service name. */
  name: string;
  /**
   * Makes a fresh connection usable (streams, managers); the connection counts as up only once it
   * resolved. Runs again after every reconnect, since the server may have lost its streams meanwhile.
   */
  prepare: (nc: NatsConnection) => Promise<Link>;
  /** Problems the keeper recovers from by itself, such as NATS being unreachable. */
  onError: (error: unknown, context: string) => void;
  /** Notices worth a line in the log, such as the connection coming back. */
  log: (message: string) => void;
  /** At most one "unreachable" line per this interval while NATS stays away. */
  unreachableLogIntervalMs: number;
}

export interface Connected<Link> {
  nc: NatsConnection;
  link: Link;
}

export interface NatsConnectionKeeper<Link> {
  /** The connection, once the first attempt has ended; rejects at once, saying why, when NATS is not reachable now. */
  connected: () => Promise<Connected<Link>>;
  /** Resolves when the connection is up (at once if it is now); undefined once the keeper closes. */
  whenUp: () => Promise<Connected<Link> | undefined>;
  /** Whether the connection is up at this moment. */
  isUp: () => boolean;
  close: () => Promise<void>;
}

/** How long one first-connection attempt may take, for a host that drops packets rather than refusing. */
const CONNECT_TIMEOUT_MS = 5_000;
const FIRST_RETRY_DELAY_MS = 250;
/** Short enough that a service is ready within seconds of NATS coming back. */
const MAX_RETRY_DELAY_MS = 2_000;
const DRAIN_TIMEOUT_MS = 5_000;

// Hand-made rather than p-retry (9.0.0): its `randomize` multiplies by 1–2 and then caps at
// `maxTimeout`, so once the backoff reaches the cap every replica waits exactly 2 s again and
// knocks at the same instant, the herd the ±20 % below exists to break up.
const delayBeforeAttempt = (attempt: number): number => {
  const delay = Math.min(FIRST_RETRY_DELAY_MS * 2 ** (attempt - 1), MAX_RETRY_DELAY_MS);
  // ±20 %, so the replicas of a fleet do not all knock at the same instant when NATS comes back.
  return Math.round(delay * (0.8 + Math.random() * 0.4));
};

const reasonOf = (error: unknown): string => (error instanceof Error ? error.message : String(error));

const wholeSeconds = (ms: number): number => Math.round(ms / 1000);

interface Outage {
  since: number;
  attempts: number;
  loggedAt: number;
  reason: string;
}

/**
 * A NATS connection that heals: the first connection is tried in the background, with backoff and
 * for as long as it takes, instead of failing the start; later disconnects are healed by the
 * client's own reconnects (and a closed connection by starting over). An operator sees one line
 * when NATS becomes unreachable, one at intervals while it stays so, and one when it is back.
 *
 * The client's `waitOnFirstConnect` would also retry, but its `connect()` hands out no connection
 * until one succeeds, so a service stopping meanwhile could not cancel it.
 */
export const keepNatsConnection = <Link>(options: NatsConnectionKeeperOptions<Link>): NatsConnectionKeeper<Link> => {
  let closing = false;
  let current: Connected<Link> | undefined;
  /** The connection that has succeeded once and is kept (reconnecting while down) until it closes. */
  let live: NatsConnection | undefined;
  let outage: Outage | undefined;
  let upWaiters: Array<(connected: Connected<Link> | undefined) => void> = [];
  let wakeFromBackoff: (() => void) | undefined;
  let markFirstAttemptDone!: () => void;
  const firstAttemptDone = new Promise<void>((resolve) => (markFirstAttemptDone = resolve));

  const unreachable = (): Error => {
    if (closing) return new Error(`the event bus is closed (NATS at ${options.url})`);
    if (!outage) return new Error(`NATS at ${options.url} is unreachable`);
    return new Error(`NATS at ${options.url} is unreachable (down for ${wholeSeconds(Date.now() - outage.since)} s: ${outage.reason})`);
  };

  const noteFailedAttempt = (error: unknown) => {
    const now = Date.now();
    const reason = reasonOf(error);
    if (!outage) outage = { since: now, attempts: 0, loggedAt: Number.NEGATIVE_INFINITY, reason };
    outage.attempts += 1;
    outage.reason = reason;
    if (now - outage.loggedAt < options.unreachableLogIntervalMs) return;
    outage.loggedAt = now;
    const message = `NATS at ${options.url} unreachable, retrying (attempt ${outage.attempts}, down for ${wholeSeconds(now - outage.since)} s): ${reason}`;
    options.onError(new Error(message, { cause: error }), 'connection');
  };

  const markUp = (connected: Connected<Link>) => {
    current = connected;
    if (outage) options.log(`connected to NATS at ${options.url} after ${wholeSeconds(Date.now() - outage.since)} s unreachable`);
    outage = undefined;
    const waiters = upWaiters;
    upWaiters = [];
    for (const resolve of waiters) resolve(connected);
  };

  const markDown = (reason: string) => {
    current = undefined;
    outage ??= { since: Date.now(), attempts: 0, loggedAt: Number.NEGATIVE_INFINITY, reason };
  };

  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      wakeFromBackoff = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  const drainOrClose = async (nc: NatsConnection, up: boolean) => {
    if (nc.isClosed()) return;
    // Draining a connection that is down would wait for the server; closing drops what is unsent, which the outbox sends again.
    const drained = up ? nc.drain().then(() => true, () => false) : Promise.resolve(false);
    const timedOut = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), DRAIN_TIMEOUT_MS).unref());
    if (!(await Promise.race([drained, timedOut]))) await nc.close().catch(() => {});
  };

  // Follows one connection's life after its first success: down on disconnect, up again once prepared.
  const watch = (nc: NatsConnection, link: Link) => {
    live = nc;
    void (async () => {
      for await (const status of nc.status()) {
        if (closing) return;
        if (status.type === 'disconnect') markDown('connection lost');
        else if (status.type === 'reconnecting' && !current) noteFailedAttempt(new Error(outage?.reason ?? 'connection lost'));
        else if (status.type === 'reconnect') {
          try {
            markUp({ nc, link: await options.prepare(nc) });
          } catch (error) {
            // Up for publishing and consuming all the same; the consumers report what is missing.
            options.onError(error, 'preparing the connection again after a reconnect');
            markUp({ nc, link });
          }
        }
      }
    })().catch((error: unknown) => options.onError(error, 'watching the connection'));
    void nc.closed().then((error) => {
      live = undefined;
      if (closing) return;
      markDown(error ? reasonOf(error) : 'connection closed');
      options.onError(error ?? new Error('connection closed'), `NATS at ${options.url} closed the connection; connecting again`);
      connecting = connectUntilUp();
    });
  };

  const connectUntilUp = async (): Promise<void> => {
    let attempt = 0;
    while (!closing) {
      attempt += 1;
      let nc: NatsConnection | undefined;
      try {
        nc = await connect({ servers: options.url, name: options.name, timeout: CONNECT_TIMEOUT_MS, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
        if (closing) break;
        const link = await options.prepare(nc);
        if (closing) break;
        markUp({ nc, link });
        markFirstAttemptDone();
        watch(nc, link);
        return;
      } catch (error) {
        if (nc) await nc.close().catch(() => {});
        nc = undefined;
        if (closing) break;
        noteFailedAttempt(error);
        markFirstAttemptDone();
        await sleep(delayBeforeAttempt(attempt));
      } finally {
        if (closing && nc) await nc.close().catch(() => {});
      }
    }
    markFirstAttemptDone();
  };

  let connecting = connectUntilUp();

  return {
    connected: async () => {
      await firstAttemptDone;
      if (!current) throw unreachable();
      return current;
    },
    whenUp: () => (closing ? Promise.resolve(undefined) : current ? Promise.resolve(current) : new Promise((resolve) => upWaiters.push(resolve))),
    isUp: () => current !== undefined,
    close: async () => {
      if (closing) return;
      closing = true;
      wakeFromBackoff?.();
      for (const resolve of upWaiters) resolve(undefined);
      upWaiters = [];
      await connecting;
      if (live) await drainOrClose(live, current?.nc === live);
      current = undefined;
    },
  };
};
