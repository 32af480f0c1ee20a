/**
 * A `created[gte]`/`created[lte]` bound: a datetime as given, or a date as the first (`start`) or
 * last (`end`) millisecond of that day in UTC.
 */
export const timeBound = (value: string | undefined, end: 'start' | 'end'): Date | undefined => {
  if (value === undefined) return undefined;
  if (value.length > 10) return new Date(value);
  return new Date(end === 'start' ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`);
};
