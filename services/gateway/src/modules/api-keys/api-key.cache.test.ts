import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { ApiKeyCache, type ActiveKey } from './api-key.cache.ts';
import { keyIdSegmentOf } from './api-key.domain.ts';

const KEY_ID = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
const SEGMENT = keyIdSegmentOf(KEY_ID);

const makeKey = (overrides: Partial<ActiveKey> = {}): ActiveKey => ({
  keyId: KEY_ID,
  workspaceId: '0190f3e2-0000-7000-8000-000000000001',
  mode: 'live',
  spaceId: '0190f3e2-0000-7000-8000-000000000001',
  keyHash: Buffer.alloc(32),
  scopes: new Set(['clients:read']),
  ...overrides,
});

/** A load that answers when told to, counting its calls. */
const controlledLoad = () => {
  const calls: Array<{ keyId: string; answer: (key: ActiveKey | undefined) => void }> = [];
  const load = (keyId: string) => new Promise<ActiveKey | undefined>((answer) => calls.push({ keyId, answer }));
  return { calls, load };
};

const makeCache = (load: (keyId: string) => Promise<ActiveKey | undefined>, ttlMs = 60_000) => new ApiKeyCache({ load, ttlMs, maxEntries: 100 });

describe('ApiKeyCache', () => {
  it('loads a key once for concurrent lookups, then answers from memory', async () => {
    const { calls, load } = controlledLoad();
    const sut = makeCache(load);
    const key = makeKey();

    const first = sut.find(SEGMENT);
    const second = sut.find(SEGMENT);
    expect(calls.map((call) => call.keyId)).toEqual([KEY_ID]);
    calls[0]!.answer(key);

    expect(await first).toBe(key);
    expect(await second).toBe(key);
    expect(sut.cached(SEGMENT)).toEqual({ key });
    expect(sut.find(SEGMENT)).toBe(key);
    expect(calls).toHaveLength(1);
  });

  it('caches an unknown or revoked key as none', async () => {
    const { calls, load } = controlledLoad();
    const sut = makeCache(load);

    const lookup = sut.find(SEGMENT);
    calls[0]!.answer(undefined);

    expect(await lookup).toBeUndefined();
    expect(sut.cached(SEGMENT)).toEqual({ key: undefined });
    expect(sut.find(SEGMENT)).toBeUndefined();
    expect(calls).toHaveLength(1);
  });

  it('caches a segment that encodes no key id as none, without loading', async () => {
    const { calls, load } = controlledLoad();
    const sut = makeCache(load);

    expect(await sut.find('z'.repeat(22))).toBeUndefined();
    expect(sut.cached('z'.repeat(22))).toEqual({ key: undefined });
    expect(calls).toHaveLength(0);
  });

  it('loads again after an eviction, or after everything was cleared', async () => {
    let loads = 0;
    const sut = makeCache(async () => {
      loads += 1;
      return makeKey();
    });

    await sut.find(SEGMENT);
    sut.evict(KEY_ID);
    expect(sut.cached(SEGMENT)).toBeUndefined();
    await sut.find(SEGMENT);
    sut.clear();
    expect(sut.cached(SEGMENT)).toBeUndefined();
    await sut.find(SEGMENT);
    expect(loads).toBe(3);
  });

  it('gives a load overlapping an eviction to its waiters but does not cache it: it may have read the old row', async () => {
    const { calls, load } = controlledLoad();
    const sut = makeCache(load);
    const key = makeKey();

    const lookup = sut.find(SEGMENT);
    sut.evict(KEY_ID);
    calls[0]!.answer(key);

    expect(await lookup).toBe(key);
    expect(sut.cached(SEGMENT)).toBeUndefined();
  });

  it('does not cache a load overlapping a clear either', async () => {
    const { calls, load } = controlledLoad();
    const sut = makeCache(load);
    const key = makeKey();

    const lookup = sut.find(SEGMENT);
    sut.clear();
    calls[0]!.answer(key);

    expect(await lookup).toBe(key);
    expect(sut.cached(SEGMENT)).toBeUndefined();
  });

  it('caches nothing when the load fails, and tells every waiter', async () => {
    let loads = 0;
    const sut = makeCache(async () => {
      loads += 1;
      throw new Error('database down');
    });

    await expect(Promise.all([sut.find(SEGMENT), sut.find(SEGMENT)])).rejects.toThrow('database down');
    expect(sut.cached(SEGMENT)).toBeUndefined();
    expect(loads).toBe(1);
  });

  it('forgets an entry once its time to live has passed', async () => {
    const sut = makeCache(async () => makeKey(), 20);
    await sut.find(SEGMENT);
    expect(sut.cached(SEGMENT)).toBeDefined();
    await sleep(40);
    expect(sut.cached(SEGMENT)).toBeUndefined();
  });

  it('holds at most maxEntries keys', async () => {
    const sut = new ApiKeyCache({ load: async (keyId) => makeKey({ keyId }), ttlMs: 60_000, maxEntries: 2 });
    const ids = ['0190f3e2-0000-7000-8000-00000000000a', '0190f3e2-0000-7000-8000-00000000000b', '0190f3e2-0000-7000-8000-00000000000c'];
    for (const id of ids) await sut.find(keyIdSegmentOf(id));
    expect(ids.map((id) => sut.cached(keyIdSegmentOf(id)) !== undefined)).toEqual([false, true, true]);
  });
});
