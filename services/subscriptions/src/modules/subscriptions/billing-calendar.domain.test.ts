import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { localDate, periodIndexOn, periodOf, periodStart, periodsStartedBy, startOfDay, type Cadence } from './billing-calendar.domain.ts';

const monthly: Cadence = { interval: 'month', intervalCount: 1 };

describe('periodStart', () => {
  it.each([
    // anchor, cadence, index, start
    ['2027-01-31', monthly, 1, '2027-02-28'],
    ['2027-01-31', monthly, 2, '2027-03-31'],
    ['2027-01-31', monthly, 3, '2027-04-30'],
    ['2028-01-31', monthly, 1, '2028-02-29'],
    ['2028-01-30', monthly, 1, '2028-02-29'],
    ['2027-01-29', monthly, 1, '2027-02-28'],
    ['2027-03-31', monthly, 11, '2028-02-29'],
    ['2027-08-31', { interval: 'month', intervalCount: 3 }, 2, '2028-02-29'],
    ['2028-02-29', { interval: 'year', intervalCount: 1 }, 1, '2029-02-28'],
    ['2028-02-29', { interval: 'year', intervalCount: 1 }, 4, '2032-02-29'],
    ['2027-12-30', { interval: 'week', intervalCount: 1 }, 1, '2028-01-06'],
    ['2027-12-30', { interval: 'week', intervalCount: 2 }, 3, '2028-02-10'],
    ['2028-02-28', { interval: 'day', intervalCount: 1 }, 1, '2028-02-29'],
    ['2027-02-28', { interval: 'day', intervalCount: 1 }, 1, '2027-03-01'],
    // DST changes do not move calendar dates: Europe's last Sunday of March and October are just days.
    ['2027-03-27', { interval: 'day', intervalCount: 1 }, 2, '2027-03-29'],
  ] as const)('from %s every %o, period %i starts %s', (anchor, cadence, index, start) => {
    expect(periodStart(anchor, cadence, index)).toBe(start);
  });

  it('gives a monthly period from 31 January its inclusive last day', () => {
    expect(periodOf('2027-01-31', monthly, 0)).toEqual({ start: '2027-01-31', end: '2027-02-28', lastDay: '2027-02-27' });
    expect(periodOf('2027-01-31', monthly, 1)).toEqual({ start: '2027-02-28', end: '2027-03-31', lastDay: '2027-03-30' });
    expect(periodOf('2028-01-31', monthly, 1)).toEqual({ start: '2028-02-29', end: '2028-03-31', lastDay: '2028-03-30' });
  });
});

describe('periodIndexOn and periodsStartedBy', () => {
  it.each([
    ['2027-01-31', '2027-01-30', 0, 0],
    ['2027-01-31', '2027-01-31', 0, 1],
    ['2027-01-31', '2027-02-27', 0, 1],
    ['2027-01-31', '2027-02-28', 1, 2],
    ['2027-01-31', '2027-03-30', 1, 2],
    ['2027-01-31', '2027-03-31', 2, 3],
    ['2027-01-31', '2028-02-29', 13, 14],
  ] as const)('monthly from %s, on %s: period %i, %i started', (anchor, date, index, started) => {
    expect(periodIndexOn(anchor, monthly, date)).toBe(index);
    expect(periodsStartedBy(anchor, monthly, date)).toBe(started);
  });
});

describe('time zones', () => {
  it('reads today on the workspace’s clock', () => {
    const instant = new Date('2027-03-31T23:30:00Z');
    expect(localDate(instant, 'UTC')).toBe('2027-03-31');
    expect(localDate(instant, 'Europe/Berlin')).toBe('2027-04-01');
    expect(localDate(instant, 'America/Los_Angeles')).toBe('2027-03-31');
  });

  it('begins a day at its local midnight, across DST changes', () => {
    expect(startOfDay('2027-03-28', 'Europe/Berlin').toISOString()).toBe('2027-03-27T23:00:00.000Z');
    expect(startOfDay('2027-03-29', 'Europe/Berlin').toISOString()).toBe('2027-03-28T22:00:00.000Z');
    expect(startOfDay('2027-10-31', 'Europe/Berlin').toISOString()).toBe('2027-10-30T22:00:00.000Z');
    expect(startOfDay('2027-11-01', 'Europe/Berlin').toISOString()).toBe('2027-10-31T23:00:00.000Z');
    // Santiago skips 00:00 when its summer time begins (first Sunday of September): the day begins at 01:00 local.
    const santiago = startOfDay('2027-09-05', 'America/Santiago');
    expect(localDate(santiago, 'America/Santiago')).toBe('2027-09-05');
    expect(localDate(new Date(santiago.getTime() - 1), 'America/Santiago')).toBe('2027-09-04');
  });
});

const anchors = fc.date({ min: new Date('1990-01-01T00:00:00Z'), max: new Date('2090-12-31T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString().slice(0, 10));
const cadences = fc.record({ interval: fc.constantFrom('day' as const, 'week' as const, 'month' as const, 'year' as const), intervalCount: fc.integer({ min: 1, max: 52 }) });
const zones = fc.constantFrom('UTC', 'Europe/Berlin', 'America/Santiago', 'Australia/Lord_Howe', 'Pacific/Kiritimati', 'America/St_Johns');

describe('properties', () => {
  it('periods follow each other without gap or overlap, each non-empty', () => {
    fc.assert(
      fc.property(anchors, cadences, fc.integer({ min: 0, max: 120 }), (anchor, cadence, index) => {
        const period = periodOf(anchor, cadence, index);
        const next = periodOf(anchor, cadence, index + 1);
        expect(period.start < period.end).toBe(true);
        expect(next.start).toBe(period.end);
        expect(period.lastDay >= period.start && period.lastDay < period.end).toBe(true);
      }),
    );
  });

  it('a monthly period starts on the anchor’s day, or the last day of a shorter month', () => {
    fc.assert(
      fc.property(anchors, fc.integer({ min: 1, max: 12 }), fc.integer({ min: 0, max: 240 }), (anchor, intervalCount, index) => {
        const start = periodStart(anchor, { interval: 'month', intervalCount }, index);
        const anchorDay = Number(anchor.slice(8));
        const [year, month, day] = start.split('-').map(Number) as [number, number, number];
        const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
        expect(day).toBe(Math.min(anchorDay, daysInMonth));
        const monthsApart = (year - Number(anchor.slice(0, 4))) * 12 + (month - Number(anchor.slice(5, 7)));
        expect(monthsApart).toBe(index * intervalCount);
      }),
    );
  });

  it('every date falls in exactly the period periodIndexOn names', () => {
    fc.assert(
      fc.property(anchors, cadences, fc.integer({ min: 0, max: 20_000 }), (anchor, cadence, days) => {
        const date = new Date(Date.parse(`${anchor}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
        const index = periodIndexOn(anchor, cadence, date);
        const { start, end } = periodOf(anchor, cadence, index);
        expect(start <= date && date < end).toBe(true);
        expect(periodsStartedBy(anchor, cadence, date)).toBe(index + 1);
      }),
    );
  });

  it('a day begins on that day in its zone, and the moment before is the day before', () => {
    fc.assert(
      fc.property(anchors, zones, (date, zone) => {
        const begins = startOfDay(date, zone);
        expect(localDate(begins, zone)).toBe(date);
        expect(localDate(new Date(begins.getTime() - 1), zone) < date).toBe(true);
      }),
    );
  });
});
