export interface PeriodicTaskOptions {
  /** The wait after a tick when nothing asks for another sooner. */
  intervalMs: number;
  /**
   * One tick; ticks never overlap. Resolving `true` says more work is waiting, so the next tick
   * starts at once instead of after `intervalMs`.
   */
  run: () => Promise<boolean | void>;
  onError: (error: unknown) => void;
  /**
   * The wait after a failed tick, doubling from `firstMs` up to `maxMs` while ticks keep failing.
   * Without it a failed tick waits `intervalMs`, like any other.
   */
  backoff?: { firstMs: number; maxMs: number };
}

/** The next wait after a failure, given the previous one (0 after a success). */
export const nextBackoffMs = (previousMs: number, { firstMs, maxMs }: { firstMs: number; maxMs: number }): number =>
  Math.min(maxMs, Math.max(firstMs, previousMs * 2));

/**
 * The one loop behind every background job of a service (the outbox relay, the webhook delivery
 * worker, sweeps and purges): the first tick at once, then one `intervalMs` after the previous
 * ended, or at once when the tick reports more work or someone `nudge`s.
 *
 * - A nudge during a tick is kept and answered by one more tick right after it (any number of
 *   nudges then cost one tick): the rows it announces may have committed after that tick looked.
 * - A nudge while waiting ends the wait.
 * - A failed tick is reported to `onError`, then waits the back-off; a nudge during that tick
 *   does not skip the wait, one during the wait still ends it.
 * - `stop` ends the wait and resolves once the tick in progress has ended; no tick starts after.
 */
export class PeriodicTask {
  readonly #options: PeriodicTaskOptions;
  #loop: Promise<void> | undefined;
  #stopped = true;
  #nudged = false;
  #wake: (() => void) | undefined;

  constructor(options: PeriodicTaskOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#loop) return;
    this.#stopped = false;
    this.#loop = this.#run();
  }

  /** Asks for a tick now, or right after the one in progress. */
  nudge(): void {
    this.#nudged = true;
    this.#wake?.();
  }

  async stop(): Promise<void> {
    this.#stopped = true;
    this.#wake?.();
    await this.#loop;
    this.#loop = undefined;
  }

  async #run(): Promise<void> {
    const { run, onError, intervalMs, backoff } = this.#options;
    let backoffMs = 0;
    while (!this.#stopped) {
      this.#nudged = false;
      let more = false;
      let failed = false;
      try {
        more = (await run()) === true;
        backoffMs = 0;
      } catch (error) {
        failed = true;
        onError(error);
        if (backoff) backoffMs = nextBackoffMs(backoffMs, backoff);
      }
      if (this.#stopped) return;
      if (!failed && (more || this.#nudged)) continue;
      await this.#sleep(failed && backoff ? backoffMs : intervalMs);
    }
  }

  #sleep(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#wake = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      this.#wake = undefined;
    });
  }
}
