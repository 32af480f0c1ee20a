import { keyIdOfSegment, keyIdSegmentOf } from './api-key.domain.ts';

/** What authentication needs of a usable (existing, unrevoked) key. */
export interface ActiveKey {
  keyId: string;
  workspaceId: string;
  /** SHA-256 of the key, as bytes for a constant-time comparison. */
  keyHash: Buffer;
  scopes: ReadonlySet<string>;
}

interface Entry {
  key: ActiveKey | undefined;
  expiresAt: number;
}

export interface ApiKeyCacheOptions {
  /** The active key with this id; undefined when it does not exist or is revoked. */
  load: (keyId: string) => Promise<ActiveKey | undefined>;
  ttlMs: number;
  maxEntries: number;
}

/**
 * Keys by id segment, so that a request with a known key costs no database work. Unknown and
 * revoked ids are cached too, so one made-up key sent again and again costs one query; a flood of
 * different made-up keys is held back by each client address's lookup budget (key-lookup-budget.ts).
 * Changes announced by PostgreSQL evict entries at once; the TTL bounds staleness if a notice
 * is ever missed.
 */
export class ApiKeyCache {
  readonly #entries = new Map<string, Entry>();
  readonly #loading = new Map<string, Promise<ActiveKey | undefined>>();
  readonly #options: ApiKeyCacheOptions;
  // A load that started before an eviction may have read the old row: it must not be cached.
  #generation = 0;

  constructor(options: ApiKeyCacheOptions) {
    this.#options = options;
  }

  /** The active key behind an id segment (synchronously when cached), or undefined. */
  find(segment: string): ActiveKey | undefined | Promise<ActiveKey | undefined> {
    const entry = this.cached(segment);
    return entry === undefined ? this.#loadOnce(segment) : entry.key;
  }

  /** What the cache holds for an id segment without loading it: `{ key }` (undefined key: unknown or revoked), or undefined when it must be loaded. */
  cached(segment: string): { key: ActiveKey | undefined } | undefined {
    const entry = this.#entries.get(segment);
    return entry !== undefined && entry.expiresAt > Date.now() ? entry : undefined;
  }

  /** Forgets one key, by its id (dashed UUID), as announced by a change notice. */
  evict(keyId: string): void {
    this.#generation += 1;
    this.#entries.delete(keyIdSegmentOf(keyId));
  }

  /** Forgets everything: after a lost notice connection, any entry may be stale. */
  clear(): void {
    this.#generation += 1;
    this.#entries.clear();
  }

  #loadOnce(segment: string): Promise<ActiveKey | undefined> {
    const pending = this.#loading.get(segment);
    if (pending) return pending;
    const generation = this.#generation;
    const keyId = keyIdOfSegment(segment);
    const load = (keyId === undefined ? Promise.resolve(undefined) : this.#options.load(keyId))
      .then((key) => {
        if (generation === this.#generation) this.#remember(segment, key);
        return key;
      })
      .finally(() => this.#loading.delete(segment));
    this.#loading.set(segment, load);
    return load;
  }

  #remember(segment: string, key: ActiveKey | undefined): void {
    if (this.#entries.size >= this.#options.maxEntries) {
      const oldest = this.#entries.keys().next();
      if (!oldest.done) this.#entries.delete(oldest.value);
    }
    this.#entries.set(segment, { key, expiresAt: Date.now() + this.#options.ttlMs });
  }
}
