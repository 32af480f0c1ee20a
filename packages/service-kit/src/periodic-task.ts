export interface PeriodicTaskOptions {
  intervalMs: number;
  /** One run; the next starts `intervalMs` after it ends, so runs never overlap. */
  run: () => Promise<unknown>;
  onError: (error: unknown) => void;
}

/**
 * Background work on a timer inside a service (a sweep, a purge): the first run at once, then one
 * every interval after the previous run ended; `stop` waits for a run in progress.
 */
export class PeriodicTask {
  readonly #options: PeriodicTaskOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<unknown> | undefined;
  #stopped = true;

  constructor(options: PeriodicTaskOptions) {
    this.#options = options;
  }

  start(): void {
    this.#stopped = false;
    this.#schedule(0);
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    clearTimeout(this.#timer);
    await this.#running;
  }

  #schedule(delayMs: number): void {
    if (this.#stopped) return;
    this.#timer = setTimeout(() => {
      this.#running = this.#options
        .run()
        .catch(this.#options.onError)
        .finally(() => this.#schedule(this.#options.intervalMs));
    }, delayMs);
  }
}
