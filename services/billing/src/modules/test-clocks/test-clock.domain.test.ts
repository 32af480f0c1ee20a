import { dataSpaceOf } from '@invoicing/service-kit/data-space';
import { describe, expect, it } from 'vitest';
import { ADVANCE_MAX_DAYS, ADVANCE_STEP_MS, advanceChanges, advanceSteps, assertTestSpace, nextStep, testClockView } from './test-clock.domain.ts';

const at = (iso: string) => new Date(iso);
const iso = (dates: readonly Date[]) => dates.map((date) => date.toISOString());

describe('stepping a test clock', () => {
  it('moves one day at a time and lands exactly on the target', () => {
    expect(iso(advanceSteps(at('2027-01-10T09:00:00.000Z'), at('2027-01-13T15:30:00.000Z')))).toEqual([
      '2027-01-11T09:00:00.000Z',
      '2027-01-12T09:00:00.000Z',
      '2027-01-13T09:00:00.000Z',
      '2027-01-13T15:30:00.000Z',
    ]);
  });

  it('takes one step when the target is less than a day ahead, and a step of a whole day when it is exactly one', () => {
    expect(iso(advanceSteps(at('2027-01-10T09:00:00.000Z'), at('2027-01-10T09:00:00.001Z')))).toEqual(['2027-01-10T09:00:00.001Z']);
    expect(iso(advanceSteps(at('2027-01-10T09:00:00.000Z'), at('2027-01-11T09:00:00.000Z')))).toEqual(['2027-01-11T09:00:00.000Z']);
  });

  it('visits every day of a three-month advance once, in order', () => {
    const steps = advanceSteps(at('2027-01-10T09:00:00.000Z'), at('2027-04-05T09:00:00.000Z'));
    expect(steps).toHaveLength(85);
    for (let index = 1; index < steps.length; index += 1) expect(steps[index]!.getTime() - steps[index - 1]!.getTime()).toBe(ADVANCE_STEP_MS);
  });

  it('resumes from any committed step to the same remaining steps', () => {
    const from = at('2027-01-10T09:00:00.000Z');
    const target = at('2027-01-20T00:00:00.000Z');
    const all = advanceSteps(from, target);
    expect(iso(advanceSteps(all[3]!, target))).toEqual(iso(all.slice(4)));
    expect(nextStep(target, target)).toEqual(target);
  });
});

describe('advancing', () => {
  const ready = { status: 'ready' as const, frozenTime: at('2027-01-10T09:00:00.000Z') };

  it('sets the target and the status in one change', () => {
    expect(advanceChanges(ready, at('2027-02-10T09:00:00.000Z'))).toEqual({ status: 'advancing', advanceTo: at('2027-02-10T09:00:00.000Z') });
  });

  it('goes at most two years at once (bounded work: a step a day)', () => {
    expect(advanceChanges(ready, new Date(ready.frozenTime.getTime() + ADVANCE_MAX_DAYS * ADVANCE_STEP_MS)).status).toBe('advancing');
    expect(() => advanceChanges(ready, new Date(ready.frozenTime.getTime() + ADVANCE_MAX_DAYS * ADVANCE_STEP_MS + 1))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
  });

  it('refuses a time not later than the clock’s (400), and a clock still advancing (409)', () => {
    expect(() => advanceChanges(ready, ready.frozenTime)).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => advanceChanges(ready, at('2027-01-01T00:00:00.000Z'))).toThrow(expect.objectContaining({ code: 'invalid_request' }));
    expect(() => advanceChanges({ ...ready, status: 'advancing' }, at('2027-03-01T00:00:00.000Z'))).toThrow(expect.objectContaining({ code: 'invalid_state' }));
  });

  it('belongs to test spaces only', () => {
    const workspace = '0190f3e2-c1b2-4a8e-9d1f-3c4b5a697887';
    expect(() => assertTestSpace(workspace)).toThrow(expect.objectContaining({ code: 'forbidden', status: 403 }));
    expect(() => assertTestSpace(dataSpaceOf(workspace, 'test'))).not.toThrow();
  });

  it('shows a clock with its public id', () => {
    const view = testClockView({ id: '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887', workspaceId: dataSpaceOf('0190f3e2-c1b2-4a8e-9d1f-3c4b5a697887', 'test'), name: null, frozenTime: ready.frozenTime, status: 'ready', advanceTo: null, claimedUntil: null, created: ready.frozenTime });
    expect(view).toEqual({ id: 'clock_0190f3e2c1b27a8e9d1f3c4b5a697887', object: 'test_clock', livemode: false, name: null, frozen_time: '2027-01-10T09:00:00.000Z', status: 'ready', created: '2027-01-10T09:00:00.000Z' });
  });
});
