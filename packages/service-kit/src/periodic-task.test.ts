import { describe, expect, it } from 'vitest';
import { PeriodicTask } from './periodic-task.ts';

describe('periodic task', () => {
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
