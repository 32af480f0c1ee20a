import type { FastifyBaseLogger, FastifyServerOptions } from 'fastify';

type Bindings = Record<string, unknown>;
type LevelName = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';
type ChildOptions = Parameters<FastifyBaseLogger['child']>[1];
// pino's loggers have it; Fastify's logger type does not promise it.
type Logger = FastifyBaseLogger & { isLevelEnabled?: (level: string) => boolean };

/**
 * A request's logger that becomes a pino child only when it writes a line. Most requests write
 * none (at `info` the gateway writes one, when the response is sent), yet Fastify makes a child per
 * request for its id and authentication another for the workspace: each serialises its bindings
 * up front, a measurable share of the gateway's CPU per request. A child of a deferred logger
 * merges its bindings into one, so the line is written by a single child with all of them.
 */
class DeferredLogger {
  readonly #root: Logger;
  readonly #bindings: Bindings;
  readonly #options: ChildOptions;
  #logger: Logger | undefined;

  constructor(root: Logger, bindings: Bindings, options: ChildOptions) {
    this.#root = root;
    this.#bindings = bindings;
    this.#options = options;
  }

  get level(): string {
    return this.#logger?.level ?? this.#root.level;
  }

  set level(level: string) {
    this.#materialized().level = level;
  }

  isLevelEnabled(level: string): boolean {
    const logger = this.#logger ?? this.#root;
    return typeof logger.isLevelEnabled !== 'function' || logger.isLevelEnabled(level);
  }

  child(bindings: Bindings, options?: ChildOptions): FastifyBaseLogger {
    if (this.#logger !== undefined) return this.#logger.child(bindings, options);
    return new DeferredLogger(this.#root, { ...this.#bindings, ...bindings }, options ?? this.#options) as unknown as FastifyBaseLogger;
  }

  fatal(...args: unknown[]): void {
    this.#write('fatal', args);
  }

  error(...args: unknown[]): void {
    this.#write('error', args);
  }

  warn(...args: unknown[]): void {
    this.#write('warn', args);
  }

  info(...args: unknown[]): void {
    this.#write('info', args);
  }

  debug(...args: unknown[]): void {
    this.#write('debug', args);
  }

  trace(...args: unknown[]): void {
    this.#write('trace', args);
  }

  silent(): void {}

  #write(level: LevelName, args: unknown[]): void {
    if (!this.isLevelEnabled(level)) return;
    (this.#materialized()[level] as (...values: unknown[]) => void)(...args);
  }

  #materialized(): Logger {
    this.#logger ??= this.#root.child(this.#bindings, this.#options);
    return this.#logger;
  }
}

/** Fastify's `childLoggerFactory` for deferred request loggers. */
export const deferredChildLogger: NonNullable<FastifyServerOptions['childLoggerFactory']> = (logger, bindings, options) =>
  new DeferredLogger(logger, bindings, options) as unknown as FastifyBaseLogger;
