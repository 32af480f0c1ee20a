import closeWithGrace from 'close-with-grace';
import type { FastifyInstance } from 'fastify';
import pRetry from 'p-retry';
import { AppError } from './app-error.ts';
import { isConnectionError } from './problem.ts';

/** Another process listens on the port: a person must pick another, so the host says so and exits. */
export class PortInUseError extends Error {
  readonly host: string;
  readonly port: number;

  constructor(host: string, port: number) {
    super(`port ${port} is already in use`);
    this.host = host;
    this.port = port;
    this.name = 'PortInUseError';
  }
}

/** `app.listen`, with a busy port reported as a PortInUseError. */
export const listenOn = async (app: FastifyInstance, host: string, port: number): Promise<void> => {
  try {
    await app.listen({ host, port });
  } catch (error) {
    if ((error as { code?: unknown }).code === 'EADDRINUSE') throw new PortInUseError(host, port);
    throw error;
  }
};

export interface RunServiceOptions {
  app: FastifyInstance;
  host: string;
  port: number;
  /** How long in-flight requests may take to finish on SIGTERM/SIGINT before the process exits. */
  drainMs?: number;
  /** Runs once the app has closed: shared dependencies it did not own, such as the event bus. */
  onClosed?: () => Promise<void>;
}

/**
 * Listens (a busy port rejects with PortInUseError), and on SIGINT/SIGTERM stops taking
 * connections, drains, and closes dependencies (onClose hooks).
 */
export const runService = async ({ app, host, port, drainMs = 10_000, onClosed }: RunServiceOptions): Promise<void> => {
  closeWithGrace({ delay: drainMs }, async ({ err, signal }) => {
    if (err) app.log.error({ err }, 'closing after an uncaught error');
    else app.log.info({ signal }, 'shutting down');
    await app.close();
    await onClosed?.();
  });
  await listenOn(app, host, port);
};

/** What a service does before it serves, in two steps a host runs through `StartUp`. */
export interface StartUpSteps {
  app: FastifyInstance;
  /** Creates the database if missing and applies migrations; safe to repeat. */
  prepareDatabase: () => Promise<void>;
  /** Starts the background workers (relays, consumers, sweeps); runs once, after the database steps. */
  startWorkers: () => Promise<void>;
}

export interface RetrySchedule {
  firstDelayMs: number;
  maxDelayMs: number;
  /** While the database stays away, at most one log line per this interval (and one whenever the reason changes). */
  logEveryMs: number;
}

export const DATABASE_RETRY: RetrySchedule = { firstDelayMs: 500, maxDelayMs: 10_000, logEveryMs: 30_000 };

/** Paths answered while starting: liveness and metrics say nothing about the database. */
const ALWAYS_ANSWERED = new Set(['/healthz', '/metrics']);

/**
 * Lets a service listen before PostgreSQL answers. Until its database steps have succeeded and its
 * workers have started, `/readyz` and every request get a 503 problem naming what it waits for
 * (`database at 127.0.0.1:5432 unreachable: ECONNREFUSED`), `/healthz` stays 200, and the database
 * steps are retried with a doubling delay. A failure that is not a lost connection (a migration
 * that breaks, a password PostgreSQL refuses) is for a person to fix: `run` rejects with it.
 *
 * Construct it before the app listens: it adds an onRequest hook.
 */
export class StartUp {
  readonly #steps: StartUpSteps;
  readonly #retry: RetrySchedule;
  #waitingFor: string | undefined = 'starting: the database steps have not run yet';
  /** Aborted when the app closes: a retry waiting out its delay stops at once. */
  readonly #closing = new AbortController();

  constructor(steps: StartUpSteps, retry: RetrySchedule = DATABASE_RETRY) {
    this.#steps = steps;
    this.#retry = retry;
    steps.app.addHook('onRequest', async (request) => {
      const waitingFor = this.#waitingFor;
      if (waitingFor === undefined) return;
      const path = request.url.split('?')[0] ?? '';
      if (ALWAYS_ANSWERED.has(path)) return;
      if (path === '/readyz') throw new AppError('unavailable', `Not ready: ${waitingFor}`);
      throw new AppError('unavailable', `The service is starting (${waitingFor}); retry later.`);
    });
    // Closing while waiting for the database stops the retries, and the workers never start.
    steps.app.addHook('onClose', async () => {
      this.#closing.abort();
    });
  }

  /** Whether the service has started and serves requests. */
  get started(): boolean {
    return this.#waitingFor === undefined;
  }

  /** Retries the database steps until they succeed, then starts the workers and opens the gate. */
  async run(): Promise<void> {
    const { app, prepareDatabase, startWorkers } = this.#steps;
    const closing = this.#closing.signal;
    let loggedAt = Number.NEGATIVE_INFINITY;
    let loggedReason: string | undefined;
    try {
      await pRetry(prepareDatabase, {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: this.#retry.firstDelayMs,
        maxTimeout: this.#retry.maxDelayMs,
        factor: 2,
        signal: closing,
        // Only a lost connection is worth waiting out; anything else rejects `run` with it.
        shouldRetry: ({ error }) => isConnectionError(error),
        onFailedAttempt: ({ error }) => {
          if (!isConnectionError(error) || closing.aborted) return;
          const reason = error.message;
          this.#waitingFor = reason;
          if (reason !== loggedReason || Date.now() - loggedAt >= this.#retry.logEveryMs) {
            app.log.warn(`${reason}; retrying (every ${this.#retry.maxDelayMs / 1000} s at most) and answering 503 until it answers`);
            loggedAt = Date.now();
            loggedReason = reason;
          }
        },
      });
    } catch (error) {
      if (closing.aborted) return;
      throw error;
    }
    if (closing.aborted) return;
    await startWorkers();
    this.#waitingFor = undefined;
    if (loggedReason !== undefined) app.log.info('the database answers again: migrations applied, workers started, ready');
  }
}
