import { TEST_CLOCK_ADVANCE_MAX_DAYS, toPublicId, type CreateTestClockBody, type TestClock } from '@invoicing/contracts';
import { AppError, invalidRequest, invalidState } from '@invoicing/service-kit/app-error';
import { livemodeOf } from '@invoicing/service-kit/data-space';
import { newId } from '@invoicing/service-kit/ids';
import type { TestClockRow } from './test-clock.entity.ts';

/** One step of an advance: a day, so every daily rule (overdue, reminders) sees each day it passes. */
export const ADVANCE_STEP_MS = 86_400_000;

/** The farthest one advance goes: each day is a step, so an advance is bounded work (two years, as a yearly plan's two renewals). */
export const ADVANCE_MAX_DAYS = TEST_CLOCK_ADVANCE_MAX_DAYS;

/** Test clocks belong to test data: a live space never has one (the gateway refuses live keys first). */
export const assertTestSpace = (workspaceId: string): void => {
  if (livemodeOf(workspaceId)) throw new AppError('forbidden', 'Test clocks are for test mode only: use a test key (inv_test_…).');
};

export const newTestClock = (workspaceId: string, body: CreateTestClockBody, now: Date): TestClockRow => {
  assertTestSpace(workspaceId);
  return { id: newId(), workspaceId, name: body.name ?? null, frozenTime: new Date(body.frozen_time), status: 'ready', advanceTo: null, claimedUntil: null, created: now };
};

/** The columns an advance to `target` sets: refused while one runs, or when `target` is not later. */
export const advanceChanges = (clock: Pick<TestClockRow, 'status' | 'frozenTime'>, target: Date): Pick<TestClockRow, 'status' | 'advanceTo'> => {
  if (clock.status === 'advancing') throw invalidState('The test clock is still advancing: wait until it is ready.');
  if (target.getTime() <= clock.frozenTime.getTime()) {
    throw invalidRequest('frozen_time must be later than the clock’s frozen_time.', [{ path: 'frozen_time', message: `is not later than ${clock.frozenTime.toISOString()}` }]);
  }
  if (target.getTime() - clock.frozenTime.getTime() > ADVANCE_MAX_DAYS * ADVANCE_STEP_MS) {
    throw invalidRequest(`frozen_time may be at most ${ADVANCE_MAX_DAYS} days after the clock’s frozen_time.`, [{ path: 'frozen_time', message: `is more than ${ADVANCE_MAX_DAYS} days after ${clock.frozenTime.toISOString()}` }]);
  }
  return { status: 'advancing', advanceTo: target };
};

/** A clock can go only while nothing moves it. */
export const assertDeletable = (clock: Pick<TestClockRow, 'status'>): void => {
  if (clock.status === 'advancing') throw invalidState('The test clock is advancing: delete it once it is ready.');
};

/** The next time an advance moves to from `frozen`: a day later, or the target when that is nearer. */
export const nextStep = (frozen: Date, target: Date, stepMs = ADVANCE_STEP_MS): Date => new Date(Math.min(frozen.getTime() + stepMs, target.getTime()));

/** Every time an advance from `from` to `target` stops at, in order (the last is `target`). */
export const advanceSteps = (from: Date, target: Date, stepMs = ADVANCE_STEP_MS): Date[] => {
  const steps: Date[] = [];
  for (let at = from; at.getTime() < target.getTime(); ) {
    at = nextStep(at, target, stepMs);
    steps.push(at);
  }
  return steps;
};

export const testClockView = (row: TestClockRow): TestClock => ({
  id: toPublicId('testClock', row.id),
  object: 'test_clock',
  livemode: livemodeOf(row.workspaceId),
  name: row.name ?? null,
  frozen_time: row.frozenTime.toISOString(),
  status: row.status,
  created: row.created.toISOString(),
});
