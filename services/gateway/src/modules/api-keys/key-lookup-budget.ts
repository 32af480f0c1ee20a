// Kept instead of a second @fastify/rate-limit limiter. Its `createRateLimit()` could do the counting
// (peeked with `{ increment: false }` before a lookup, counted after a failed one), but a limiter it
// makes always counts in the store the plugin was registered with: with REDIS_URL this budget
// would move into Redis (a test with two replicas confirmed it holds across them), costing a round
// trip per unknown key and, while Redis is away (`skipOnError`), letting every made-up key through
// to PostgreSQL, the load this budget exists to shed (README, "Rate limits": it stays in memory).
// The plugin's in-memory store is not exported, and registering the plugin a second time on the
// same app gives no limiter with a store of its own (the decorators of the first one stay).
import { normalizeIP } from '@fastify/rate-limit';
import { AppError } from '@invoicing/service-kit';

/**
 * How many keys one client address may present that turn out unknown, revoked or wrong, per window,
 * before the gateway stops looking its keys up in the database. Keys the gateway knows are cached
 * (unknown and revoked ids too), so this matters only for a client sending a different made-up key
 * each time: without it, every such request would be a query. Keys that exist never count, so a
 * real key is refused only from an address that has also sent many bad ones. Counted in fixed
 * windows: memory holds at most one counter per address that failed in the current window.
 */
export class KeyLookupBudget {
  readonly #max: number;
  readonly #windowMs: number;
  readonly #failures = new Map<string, number>();
  #windowEndsAt = 0;

  constructor({ max, windowMs }: { max: number; windowMs: number }) {
    this.#max = max;
    this.#windowMs = windowMs;
  }

  /** Throws 429 when `address` (an IPv6 client counts by its /64) has used up its failures in this window. */
  assertLookupAllowed(address: string, now = Date.now()): void {
    this.#roll(now);
    if ((this.#failures.get(normalizeIP(address)) ?? 0) < this.#max) return;
    const retryAfterSeconds = Math.max(1, Math.ceil((this.#windowEndsAt - now) / 1000));
    throw new AppError('rate_limited', `Too many unknown or revoked API keys from this client address; retry in ${retryAfterSeconds} s.`, {
      headers: { 'retry-after': String(retryAfterSeconds) },
    });
  }

  /** Counts a key from `address` that was looked up and refused. */
  recordFailure(address: string, now = Date.now()): void {
    this.#roll(now);
    const client = normalizeIP(address);
    this.#failures.set(client, (this.#failures.get(client) ?? 0) + 1);
  }

  #roll(now: number): void {
    if (now < this.#windowEndsAt) return;
    this.#failures.clear();
    this.#windowEndsAt = now + this.#windowMs;
  }
}
