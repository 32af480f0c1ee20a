import type { LocalDate } from '../../shared/clock.ts';

/**
 * Invoice numbers (decisions.md, "Numbering"). A series is (workspace, format, period); the
 * period is the month when the format has `{MM}`, else the year when it has `{YYYY}` or `{YY}`,
 * else none (stored as ''), in which case the series never restarts.
 */

const TOKEN = /\{(YYYY|YY|MM|SEQ:(\d+))\}/g;

export const NO_PERIOD = '';

/** The period a finalization at `local` belongs to under `format`: `2026-11`, `2026` or ''. */
export const periodOf = (format: string, local: LocalDate): string => {
  if (format.includes('{MM}')) return `${local.year}-${local.month}`;
  if (format.includes('{YYYY}') || format.includes('{YY}')) return local.year;
  return NO_PERIOD;
};

/** The number `sequence` of the series (`format`, `period`): `INV/2026/0042`. */
export const formatNumber = (format: string, period: string, sequence: number): string =>
  format.replace(TOKEN, (token, name: string, width: string | undefined) => {
    if (width !== undefined) return String(sequence).padStart(Number(width), '0');
    if (name === 'YYYY') return period.slice(0, 4);
    if (name === 'YY') return period.slice(2, 4);
    return period.slice(5, 7);
  });

/** A period as the API shows it: null for a series without one. */
export const periodView = (period: string): string | null => (period === NO_PERIOD ? null : period);
