import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Claim } from './idempotency.repository.ts';
import { LeaseKeeper } from './lease-keeper.ts';

const makeClaim = (overrides: Partial<Claim> = {}): Claim => ({ workspaceId: 'ws', key: 'key-1', lockToken: 'token-1', ...overrides });

describe('LeaseKeeper', () => {
  let renewed: (readonly Claim[])[];
  let errors: unknown[];
  let renew: (claims: readonly Claim[]) => Promise<void>;
  const makeKeeper = () =>
    new LeaseKeeper({ renew: (claims) => renew(claims), everyMs: 1_000, maxHoldMs: 10_000, onError: (error) => errors.push(error), now: () => Date.now() });

  beforeEach(() => {
    vi.useFakeTimers();
    renewed = [];
    errors = [];
    renew = async (claims) => void renewed.push(claims);
  });
  afterEach(() => vi.useRealTimers());

  it('renews every claim kept, all in one renewal per beat, until each is dropped', async () => {
    const sut = makeKeeper();
    const [first, second] = [makeClaim(), makeClaim({ key: 'key-2', lockToken: 'token-2' })];
    sut.keep(first);
    sut.keep(second);

    await vi.advanceTimersByTimeAsync(2_000);
    sut.drop(first);
    await vi.advanceTimersByTimeAsync(1_000);
    sut.drop(second);
    await vi.advanceTimersByTimeAsync(5_000);

    expect(renewed).toEqual([[first, second], [first, second], [second]]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('renews nothing once stopped (its process is going away): the claims lapse with their leases', async () => {
    const sut = makeKeeper();
    sut.keep(makeClaim());
    await vi.advanceTimersByTimeAsync(1_000);

    sut.stop();
    await vi.advanceTimersByTimeAsync(5_000);

    expect(renewed).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('gives up a claim held longer than the longest hold, so a request that never settles cannot hold its key for ever', async () => {
    const sut = makeKeeper();
    const claim = makeClaim();
    sut.keep(claim);

    await vi.advanceTimersByTimeAsync(12_000);

    expect(renewed).toHaveLength(10);
    expect(sut.keeps(claim)).toBe(false);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('reports a failed renewal and tries again at the next beat', async () => {
    const sut = makeKeeper();
    let calls = 0;
    renew = async (claims) => {
      calls += 1;
      if (calls === 1) throw new Error('database away');
      renewed.push(claims);
    };
    sut.keep(makeClaim());

    await vi.advanceTimersByTimeAsync(2_000);

    expect(errors).toEqual([new Error('database away')]);
    expect(renewed).toHaveLength(1);
  });

  it('starts no renewal while the last one still runs', async () => {
    const sut = makeKeeper();
    let running = 0;
    let mostAtOnce = 0;
    renew = async () => {
      running += 1;
      mostAtOnce = Math.max(mostAtOnce, running);
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      running -= 1;
    };
    sut.keep(makeClaim());

    await vi.advanceTimersByTimeAsync(6_000);

    expect(mostAtOnce).toBe(1);
  });
});
