import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { nextBackoffMs, PeriodicTask, type PeriodicTaskOptions } from './periodic-task.ts';

/** A tick that waits until the test lets it end. */
const gate = () => {
  let open: () => void = () => {};
  const closed = new Promise<void>((resolve) => (open = resolve));
  return { closed, open: () => open() };
};

describe('periodic task, real timers', () => {
  it('runs at once, then again an interval after each run ends, keeps going after a failure, and stop waits for a run in progress', async () => {
    const started: number[] = [];
    const errors: unknown[] = [];
    let release: (() => void) | undefined;
    const sut = new PeriodicTask({
      intervalMs: 10,
      run: async () => {
        started.push(Date.now());
        if (started.length === 2) throw new Error('one bad run');
        if (started.length === 3) await new Promise<void>((resolve) => (release = resolve));
      },
      onError: (error) => errors.push(error),
    });
    sut.start();
    await expect.poll(() => started.length).toBe(3);
    const stopping = sut.stop();
    let stopped = false;
    void stopping.then(() => (stopped = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stopped).toBe(false);
    release?.();
    await stopping;
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(started).toHaveLength(3);
    expect(errors.map(String)).toEqual(['Error: one bad run']);
  });
});

describe('periodic task, on a fake clock', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  /** The task under test, recording when each tick starts (ms since the start). */
  const makeTask = (tick: (n: number) => Promise<boolean | void>, options: Partial<PeriodicTaskOptions> = {}) => {
    const t0 = Date.now();
    const starts: number[] = [];
    const errors: string[] = [];
    const sut = new PeriodicTask({
      intervalMs: 1_000,
      run: () => {
        starts.push(Date.now() - t0);
        return tick(starts.length);
      },
      onError: (error) => errors.push(String(error)),
      ...options,
    });
    return { sut, starts, errors };
  };

  it('answers any number of nudges during a tick with one more tick right after it, then waits the interval', async () => {
    const first = gate();
    const { sut, starts } = makeTask(async (n) => {
      if (n === 1) await first.closed;
    });
    sut.start();
    await vi.advanceTimersByTimeAsync(100);
    for (let i = 0; i < 5; i++) sut.nudge();
    first.open();
    await vi.advanceTimersByTimeAsync(999);
    expect(starts).toEqual([0, 100]);
    await vi.advanceTimersByTimeAsync(1);
    expect(starts).toEqual([0, 100, 1_100]);
    await sut.stop();
  });

  it('ends the wait when nudged, and runs at once again while a tick reports more work', async () => {
    const { sut, starts } = makeTask(async (n) => n >= 2 && n < 4);
    sut.start();
    await vi.advanceTimersByTimeAsync(300);
    sut.nudge();
    await vi.advanceTimersByTimeAsync(0);
    expect(starts).toEqual([0, 300, 300, 300]);
    await vi.advanceTimersByTimeAsync(1_000);
    expect(starts).toEqual([0, 300, 300, 300, 1_300]);
    await sut.stop();
  });

  it.each([
    { previousMs: 0, expected: 250 },
    { previousMs: 250, expected: 500 },
    { previousMs: 500, expected: 1_000 },
    { previousMs: 16_000, expected: 30_000 },
    { previousMs: 30_000, expected: 30_000 },
  ])('after a wait of $previousMs ms, a failure waits $expected ms', ({ previousMs, expected }) => {
    expect(nextBackoffMs(previousMs, { firstMs: 250, maxMs: 30_000 })).toBe(expected);
  });

  it('backs off, doubling, while ticks fail, ignores nudges during a failed tick, and waits the interval again after a success', async () => {
    // Ticks 1-5 fail, 6 succeeds, 7 fails again; each failing tick is nudged while it runs.
    const { sut, starts, errors } = makeTask(
      async (n) => {
        if (n <= 5 || n === 7) {
          sut.nudge();
          throw new Error(`tick ${n}`);
        }
      },
      { intervalMs: 5_000, backoff: { firstMs: 250, maxMs: 1_000 } },
    );
    sut.start();
    await vi.advanceTimersByTimeAsync(9_100);
    await sut.stop();
    const waits = starts.slice(1).map((start, i) => start - starts[i]!);
    expect(waits).toEqual([250, 500, 1_000, 1_000, 1_000, 5_000, 250]);
    expect(errors).toEqual(['Error: tick 1', 'Error: tick 2', 'Error: tick 3', 'Error: tick 4', 'Error: tick 5', 'Error: tick 7']);
  });

  it('without a back-off, waits the interval after a failed tick even when nudged during it', async () => {
    const { sut, starts } = makeTask(async () => {
      sut.nudge();
      throw new Error('down');
    });
    sut.start();
    await vi.advanceTimersByTimeAsync(2_500);
    await sut.stop();
    expect(starts).toEqual([0, 1_000, 2_000]);
  });

  it('stops at once while waiting, and starts no tick after stop', async () => {
    const { sut, starts } = makeTask(async () => {});
    sut.start();
    await vi.advanceTimersByTimeAsync(10);
    await sut.stop();
    sut.nudge();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(starts).toEqual([0]);
  });

  it('stop waits for the tick in progress, even when nudged meanwhile, and no tick follows it', async () => {
    const running = gate();
    const { sut, starts } = makeTask(async () => running.closed);
    sut.start();
    let stopped = false;
    const stopping = sut.stop().then(() => (stopped = true));
    sut.nudge();
    await vi.advanceTimersByTimeAsync(5_000);
    expect(stopped).toBe(false);
    running.open();
    await stopping;
    await vi.advanceTimersByTimeAsync(5_000);
    expect(starts).toEqual([0]);
  });
});
