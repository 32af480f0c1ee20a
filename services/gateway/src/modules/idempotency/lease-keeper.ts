import type { Claim } from './idempotency.repository.ts';

export interface LeaseKeeperOptions {
  /** Extends the leases of these claims in one go; a claim no longer held in the database is left alone. */
  renew: (claims: readonly Claim[]) => Promise<void>;
  /** How often the leases are renewed while any claim is kept: well within one lease. */
  everyMs: number;
  /** Longest a claim is kept alive: a request that never settles its key holds it no longer than this and one lease. */
  maxHoldMs: number;
  /** Told when a renewal failed; the next beat tries again. */
  onError: (error: unknown) => void;
  now?: () => number;
}

/**
 * Keeps alive the claims of this process's requests in flight: every `everyMs`, while any is kept,
 * one renewal extends all their leases. A live gateway so holds its keys however long its
 * requests run, while a gateway that died renews nothing: its claims lapse within one lease, and
 * retries of their keys take them over.
 */
export class LeaseKeeper {
  readonly #options: Required<LeaseKeeperOptions>;
  /** Each claim kept, with when it was taken. */
  readonly #kept = new Map<Claim, number>();
  #timer: NodeJS.Timeout | undefined;
  #renewing = false;

  constructor(options: LeaseKeeperOptions) {
    this.#options = { now: Date.now, ...options };
  }

  /** Renews `claim` from now on, until it is dropped. */
  keep(claim: Claim): void {
    this.#kept.set(claim, this.#options.now());
    this.#timer ??= setInterval(() => this.#beat(), this.#options.everyMs).unref();
  }

  /** Stops renewing `claim`: its request completed or released it. */
  drop(claim: Claim): void {
    this.#kept.delete(claim);
    if (this.#kept.size === 0) this.#stopBeating();
  }

  keeps(claim: Claim): boolean {
    return this.#kept.has(claim);
  }

  /** Renews nothing more: claims still kept lapse within a lease. */
  stop(): void {
    this.#kept.clear();
    this.#stopBeating();
  }

  #beat(): void {
    // A renewal still running renews the same claims; a second would only queue behind it.
    if (this.#renewing) return;
    const takenSince = this.#options.now() - this.#options.maxHoldMs;
    const claims: Claim[] = [];
    for (const [claim, takenAt] of this.#kept) {
      if (takenAt < takenSince) this.#kept.delete(claim);
      else claims.push(claim);
    }
    if (claims.length === 0) return this.#stopBeating();
    this.#renewing = true;
    this.#options
      .renew(claims)
      .catch(this.#options.onError)
      .finally(() => {
        this.#renewing = false;
      });
  }

  #stopBeating(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
