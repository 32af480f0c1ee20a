import type { LocalDate } from '../../shared/clock.ts';

/**
 * Invoice numbers (decisions.md, "Numbering"). A series is (workspace, format, period); the
 * period is the month when the format has `{MM}`, else the year when it has `{YYYY}` or `{YY}`,
 * else none (stored as ''), in which case the series never restarts.
 */

export const NO_PERIOD = '';

/** A number series: (workspace, format, period). Its numbers run 1, 2, 3, ... without a gap. */
export interface Series {
  workspaceId: string;
  format: string;
  period: string;
}

/** The period a finalization at `local` belongs to under `format`: `2026-11`, `2026` or ''. */
export const periodOf = (format: string, local: LocalDate): string => {
  if (format.includes('{MM}')) return `${local.year}-${local.month}`;
  if (format.includes('{YYYY}') || format.includes('{YY}')) return local.year;
  return NO_PERIOD;
};

/** The numbers of a series around their sequence: `INV/2026/` + at least `width` digits + `after`. */
export interface NumberParts {
  before: string;
  width: number;
  after: string;
}

const PERIOD_TOKEN = /\{(YYYY|YY|MM)\}/g;
const SEQUENCE_TOKEN = /\{SEQ:(\d+)\}/;

export const numberPartsOf = (format: string, period: string): NumberParts => {
  const sequence = SEQUENCE_TOKEN.exec(format);
  if (!sequence) throw new Error(`number format ${format} has no sequence token`);
  const withPeriod = (text: string) =>
    text.replace(PERIOD_TOKEN, (_token, name: string) => (name === 'YYYY' ? period.slice(0, 4) : name === 'YY' ? period.slice(2, 4) : period.slice(5, 7)));
  return {
    before: withPeriod(format.slice(0, sequence.index)),
    width: Number(sequence[1]),
    after: withPeriod(format.slice(sequence.index + sequence[0].length)),
  };
};

/** The number `sequence` of the series (`format`, `period`): `INV/2026/0042`. Never cuts a long sequence. */
export const formatNumber = (format: string, period: string, sequence: number): string => {
  const { before, width, after } = numberPartsOf(format, period);
  return `${before}${String(sequence).padStart(width, '0')}${after}`;
};

/** A period as the API shows it: null for a series without one. */
export const periodView = (period: string): string | null => (period === NO_PERIOD ? null : period);
