import { describe, expect, it } from 'vitest';
import { createServiceApp } from './index.ts';
import { StartUp } from './run-service.ts';

const TOKEN = 't'.repeat(32);
const SCHEDULE = { firstDelayMs: 40, maxDelayMs: 160, logEveryMs: 60_000 };

const refused = () => Object.assign(new Error('database at 127.0.0.1:5999 unreachable: ECONNREFUSED'), { code: 'ECONNREFUSED' });

const makeStartUp = (prepareDatabase: () => Promise<void>) => {
  const app = createServiceApp({ name: 'test', logger: false, internalToken: TOKEN, checkReadiness: async () => {} });
  let workersStarted = 0;
  const sut = new StartUp({ app, prepareDatabase, startWorkers: async () => void (workersStarted += 1) }, SCHEDULE);
  return { app, sut, workersStarted: () => workersStarted };
};

describe('StartUp', () => {
  it('answers 503 naming the database while it is away, retries with a doubling delay, then starts the workers once', async () => {
    const attemptsAt: number[] = [];
    const { app, sut, workersStarted } = makeStartUp(async () => {
      attemptsAt.push(performance.now());
      if (attemptsAt.length <= 4) throw refused();
    });
    await app.ready();
    const running = sut.run();
    await new Promise((resolve) => setTimeout(resolve, 10));
    const waiting = await app.inject({ method: 'GET', url: '/readyz' });
    expect(waiting.statusCode).toBe(503);
    expect(waiting.json().detail).toMatch(/unreachable: ECONNREFUSED/);
    expect((await app.inject({ method: 'GET', url: '/healthz' })).statusCode).toBe(200);

    await running;
    expect(sut.started).toBe(true);
    expect(workersStarted()).toBe(1);
    const gaps = attemptsAt.slice(1).map((at, i) => at - attemptsAt[i]!);
    // Timers fire no earlier than asked (1 ms of rounding allowed); later is the machine's load.
    expect(gaps.map((gap) => Math.ceil(gap) + 1)).toEqual([
      expect.toSatisfy((gap: number) => gap >= 40),
      expect.toSatisfy((gap: number) => gap >= 80),
      expect.toSatisfy((gap: number) => gap >= 160),
      expect.toSatisfy((gap: number) => gap >= 160),
    ]);
    expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    await app.close();
  });

  it('rejects with a failure that is not a lost connection, without retrying it', async () => {
    let attempts = 0;
    const { app, sut, workersStarted } = makeStartUp(async () => {
      attempts += 1;
      throw Object.assign(new Error('password authentication failed for user "billing"'), { code: '28P01' });
    });
    await expect(sut.run()).rejects.toThrow(/password authentication failed/);
    expect(attempts).toBe(1);
    expect(workersStarted()).toBe(0);
    await app.close();
  });

  it('stops retrying when the app closes, in the middle of a delay, and never starts the workers', async () => {
    let attempts = 0;
    const { app, sut, workersStarted } = makeStartUp(async () => {
      attempts += 1;
      throw refused();
    });
    await app.ready();
    const running = sut.run();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const closedAt = performance.now();
    await app.close();
    await running;
    expect(performance.now() - closedAt).toBeLessThan(SCHEDULE.maxDelayMs);
    const attemptsWhenClosed = attempts;
    await new Promise((resolve) => setTimeout(resolve, 2 * SCHEDULE.maxDelayMs));
    expect(attempts).toBe(attemptsWhenClosed);
    expect(sut.started).toBe(false);
    expect(workersStarted()).toBe(0);
  });
});
