import { describe, expect, it } from 'vitest';
import { KeyLookupBudget } from './key-lookup-budget.ts';

const refusal = (check: () => void) => {
  try {
    check();
  } catch (error) {
    return error as { code: string; headers?: Record<string, string> };
  }
  return undefined;
};

describe('KeyLookupBudget', () => {
  it('allows lookups until an address has max failures in the window, then refuses with 429 and the seconds left', () => {
    const sut = new KeyLookupBudget({ max: 2, windowMs: 60_000 });
    sut.recordFailure('198.51.100.1', 0);
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.1', 1_000))).toBeUndefined();
    sut.recordFailure('198.51.100.1', 1_000);
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.1', 15_500))).toMatchObject({ code: 'rate_limited', headers: { 'retry-after': '45' } });
  });

  it('counts each address apart', () => {
    const sut = new KeyLookupBudget({ max: 1, windowMs: 60_000 });
    sut.recordFailure('198.51.100.1', 0);
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.1', 0))?.code).toBe('rate_limited');
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.2', 0))).toBeUndefined();
  });

  it('counts an IPv6 client by its /64', () => {
    const sut = new KeyLookupBudget({ max: 1, windowMs: 60_000 });
    sut.recordFailure('2001:db8:40:1::1', 0);
    expect(refusal(() => sut.assertLookupAllowed('2001:db8:40:1:ffff::2', 0))?.code).toBe('rate_limited');
    expect(refusal(() => sut.assertLookupAllowed('2001:db8:40:2::1', 0))).toBeUndefined();
  });

  it('forgets every failure when the window ends', () => {
    const sut = new KeyLookupBudget({ max: 1, windowMs: 60_000 });
    sut.recordFailure('198.51.100.1', 0);
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.1', 59_999))?.code).toBe('rate_limited');
    expect(refusal(() => sut.assertLookupAllowed('198.51.100.1', 60_000))).toBeUndefined();
  });
});
