import { DateTime } from 'luxon';

// Calendar arithmetic of billing periods, with Luxon. Period starts are calendar dates (no time
// zone); only "today" and the instant a period begins depend on the workspace's time zone.

export type RecurringInterval = 'day' | 'week' | 'month' | 'year';

export interface Cadence {
  interval: RecurringInterval;
  intervalCount: number;
}

const UNIT = { day: 'days', week: 'weeks', month: 'months', year: 'years' } as const;

const dateOf = (iso: string): DateTime => {
  const date = DateTime.fromISO(iso, { zone: 'UTC' });
  if (!date.isValid) throw new RangeError(`not a calendar date: ${iso}`);
  return date;
};

/**
 * The start of period `index` (0 is the first, at `anchor`). Every period is counted from the
 * anchor, never from the previous period, so a month from 31 January starts 28 (or 29) February
 * and then 31 March, not 28 March: Luxon clamps a day the month lacks to its last day.
 */
export const periodStart = (anchor: string, cadence: Cadence, index: number): string =>
  dateOf(anchor)
    .plus({ [UNIT[cadence.interval]]: index * cadence.intervalCount })
    .toISODate()!;

/** Period `index` as `[start, end)`, and its last day (inclusive, as EN 16931 states periods). */
export const periodOf = (anchor: string, cadence: Cadence, index: number): { start: string; end: string; lastDay: string } => {
  const start = periodStart(anchor, cadence, index);
  const end = periodStart(anchor, cadence, index + 1);
  return { start, end, lastDay: dateOf(end).minus({ days: 1 }).toISODate()! };
};

/** A rough count of periods between two dates, from which `periodIndexOn` steps to the exact one. */
const estimatedIndex = (anchor: string, cadence: Cadence, date: string): number => {
  const units = dateOf(date).diff(dateOf(anchor), UNIT[cadence.interval]).get(UNIT[cadence.interval]);
  return Math.max(0, Math.floor(units / cadence.intervalCount));
};

/** The index of the period `date` falls in; 0 for a date before the anchor (the first period is the current one then). */
export const periodIndexOn = (anchor: string, cadence: Cadence, date: string): number => {
  if (date < anchor) return 0;
  let index = estimatedIndex(anchor, cadence, date);
  while (index > 0 && periodStart(anchor, cadence, index) > date) index -= 1;
  while (periodStart(anchor, cadence, index + 1) <= date) index += 1;
  return index;
};

/** How many periods have started by `date` (their start on or before it). */
export const periodsStartedBy = (anchor: string, cadence: Cadence, date: string): number => (date < anchor ? 0 : periodIndexOn(anchor, cadence, date) + 1);

/** The calendar date of `instant` in `timeZone` (an IANA name). */
export const localDate = (instant: Date, timeZone: string): string => DateTime.fromJSDate(instant, { zone: timeZone }).toISODate()!;

/**
 * The instant `date` begins in `timeZone`: its first moment on the local clock. Where a DST change
 * skips midnight (Santiago, Beirut), that is the first moment the day has.
 */
export const startOfDay = (date: string, timeZone: string): Date => DateTime.fromISO(date, { zone: timeZone }).startOf('day').toJSDate();

/** Whether `timeZone` is an IANA name Luxon (so Intl) knows. */
export const isKnownTimeZone = (timeZone: string): boolean => DateTime.local().setZone(timeZone).isValid;
