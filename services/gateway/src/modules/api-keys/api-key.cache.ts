import { LRUCache } from 'lru-cache';
import type { Mode } from '@invoicing/service-kit/data-space';
import { keyIdOfSegment, keyIdSegmentOf } from './api-key.domain.ts';

/** What authentication needs of a usable (existing, unrevoked) key. */
export interface ActiveKey {
  keyId: string;
  workspaceId: string;
  mode: Mode;
  /** The data space the key's requests read and write: its workspace's id when live (data-space.ts). */
  spaceId: string;
  /** SHA-256 of the key, as bytes for a constant-time comparison. */
  keyHash: Buffer;
  scopes: ReadonlySet<string>;
}

/** What the cache holds for an id segment; `key` undefined: no such key, or revoked. */
export interface CachedKey {
  key: ActiveKey | undefined;
}

export interface ApiKeyCacheOptions {
  /** The active key with this id; undefined when it does not exist or is revoked. */
  load: (keyId: string) => Promise<ActiveKey | undefined>;
  ttlMs: number;
  maxEntries: number;
}

/**
 * Keys by id segment, so that a request with a known key costs no database work. Unknown and
 * revoked ids are cached too (as `{ key: undefined }`: lru-cache takes an undefined value for a
 * miss), so one made-up key sent again and again costs one query; a flood of different made-up
 * keys is held back by each client address's lookup budget (key-lookup-budget.ts).
 * Changes announced by PostgreSQL evict entries at once; the TTL bounds staleness if a notice
 * is ever missed. Concurrent lookups of one segment share one load.
 */
export class ApiKeyCache {
  readonly #entries: LRUCache<string, CachedKey>;

  constructor({ load, ttlMs, maxEntries }: ApiKeyCacheOptions) {
    this.#entries = new LRUCache<string, CachedKey>({
      max: maxEntries,
      ttl: ttlMs,
      fetchMethod: async (segment) => {
        const keyId = keyIdOfSegment(segment);
        return { key: keyId === undefined ? undefined : await load(keyId) };
      },
      // An eviction (or clear) during a load aborts it: the load may have read the old row, so its
      // result must not be cached, but the requests waiting for it still get it rather than an error.
      ignoreFetchAbort: true,
    });
  }

  /** The active key behind an id segment (synchronously when cached), or undefined. */
  find(segment: string): ActiveKey | undefined | Promise<ActiveKey | undefined> {
    const entry = this.#entries.get(segment);
    return entry === undefined ? this.#entries.fetch(segment).then((loaded) => loaded?.key) : entry.key;
  }

  /** What the cache holds for an id segment without loading it, or undefined when it must be loaded. */
  cached(segment: string): CachedKey | undefined {
    return this.#entries.get(segment);
  }

  /** Forgets one key, by its id (dashed UUID), as announced by a change notice. */
  evict(keyId: string): void {
    this.#entries.delete(keyIdSegmentOf(keyId));
  }

  /** Forgets everything: after a lost notice connection, any entry may be stale. */
  clear(): void {
    this.#entries.clear();
  }
}
