import { decodeCursor, type KeysetPosition } from '@invoicing/service-kit';

/** The position after which the page starts: none on the first page, a 400 for a cursor we did not issue. */
export const positionOf = (cursor: string | undefined): KeysetPosition | undefined =>
  cursor === undefined ? undefined : decodeCursor(cursor);

/** A datetime as given, or a date as the first (`start`) or last (`end`) millisecond of that day in UTC. */
export const timeBound = (value: string | undefined, end: 'start' | 'end'): Date | undefined => {
  if (value === undefined) return undefined;
  if (value.length > 10) return new Date(value);
  return new Date(end === 'start' ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`);
};
