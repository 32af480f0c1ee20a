import { describe, expect, it } from 'vitest';
import { localDateOf } from '../../shared/clock.ts';
import { formatNumber, numberPartsOf, periodOf } from './numbering.domain.ts';

const local = (date: string) => ({ date, year: date.slice(0, 4), month: date.slice(5, 7) });

describe('number formats', () => {
  it.each([
    ['INV/{YYYY}/{SEQ:4}', '2026-11-22', 1, '2026', 'INV/2026/0001'],
    ['INV/{YYYY}/{SEQ:4}', '2026-11-22', 12345, '2026', 'INV/2026/12345'],
    ['{YY}{MM}-{SEQ:3}', '2026-03-01', 7, '2026-03', '2603-007'],
    ['F-{YYYY}-{MM}-{SEQ:1}', '2027-12-31', 10, '2027-12', 'F-2027-12-10'],
    ['{SEQ:6}', '2026-11-22', 42, '', '000042'],
    ['A{YY}/{SEQ:2}', '2031-01-15', 3, '2031', 'A31/03'],
  ])('%s on %s, sequence %d: period %s, number %s', (format, date, sequence, period, number) => {
    expect(periodOf(format, local(date))).toBe(period);
    expect(formatNumber(format, period, sequence)).toBe(number);
  });

  it('takes the period in the workspace time zone: New Year in Auckland is still December in UTC', () => {
    const instant = new Date('2026-12-31T12:00:00Z');
    expect(periodOf('INV/{YYYY}/{SEQ:4}', localDateOf(instant, 'Pacific/Auckland'))).toBe('2027');
    expect(periodOf('INV/{YYYY}/{SEQ:4}', localDateOf(instant, 'UTC'))).toBe('2026');
    expect(periodOf('{YYYY}-{MM}-{SEQ:3}', localDateOf(new Date('2026-03-01T03:00:00Z'), 'America/Los_Angeles'))).toBe('2026-02');
  });
});

describe('number parts', () => {
  it('splits a number around its sequence, the period filled in, as the finalize statement pads it', () => {
    expect(numberPartsOf('INV/{YYYY}/{SEQ:4}', '2026')).toEqual({ before: 'INV/2026/', width: 4, after: '' });
    expect(numberPartsOf('{YY}{MM}-{SEQ:3}-X', '2026-03')).toEqual({ before: '2603-', width: 3, after: '-X' });
    expect(formatNumber('A{SEQ:2}', '', 12345)).toBe('A12345');
  });
});
