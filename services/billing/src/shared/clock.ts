// Billing's calendar arithmetic, in the workspace's time zone. The clock itself is the kit's
// (`@invoicing/service-kit/clock`).

/** A calendar date and month as seen in one time zone. */
export interface LocalDate {
  /** `YYYY-MM-DD` */
  date: string;
  year: string;
  month: string;
}

const formatters = new Map<string, Intl.DateTimeFormat>();

const formatterFor = (timeZone: string): Intl.DateTimeFormat => {
  let formatter = formatters.get(timeZone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' });
    formatters.set(timeZone, formatter);
  }
  return formatter;
};

/** The calendar date of `instant` in `timeZone` (an IANA name). */
export const localDateOf = (instant: Date, timeZone: string): LocalDate => {
  const parts = Object.fromEntries(formatterFor(timeZone).formatToParts(instant).map((part) => [part.type, part.value]));
  const year = parts.year ?? '';
  const month = parts.month ?? '';
  return { date: `${year}-${month}-${parts.day ?? ''}`, year, month };
};

/** `YYYY-MM-DD` plus whole days, on the proleptic Gregorian calendar. */
export const addDays = (date: string, days: number): string => {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, (day ?? 1) + days)).toISOString().slice(0, 10);
};
