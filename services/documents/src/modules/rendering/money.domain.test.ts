import { describe, expect, it } from 'vitest';
import { currencySymbol, formatDate, formatMoney, formatPercent, formatQuantity } from './money.domain.ts';

describe('formatMoney', () => {
  it.each([
    [123456, 'USD', '$1,234.56'],
    [5, 'USD', '$0.05'],
    [0, 'USD', '$0.00'],
    [-500, 'USD', '\u2212$5.00'],
    [100000000, 'EUR', '€1,000,000.00'],
    [1235, 'JPY', '¥1,235'],
    [0, 'JPY', '¥0'],
    [1250, 'KWD', 'KWD\u00a01.250'],
    [7, 'KWD', 'KWD\u00a00.007'],
    [1234567, 'BHD', 'BHD\u00a01,234.567'],
    [10000, 'CAD', 'CA$100.00'],
    [9007199254740991, 'USD', '$90,071,992,547,409.91'],
  ])('%i minor units of %s print as %s', (minor, currency, expected) => {
    expect(formatMoney(minor, currency)).toBe(expected);
  });

  it('refuses a fractional amount instead of rounding it', () => {
    expect(() => formatMoney(1.5, 'USD')).toThrow(RangeError);
  });
});

describe('the other formats', () => {
  it.each([
    [8.5, '8.5%'],
    [19, '19%'],
    [7.25, '7.25%'],
    [0, '0%'],
    [0.1 + 0.2, '0.3%'],
  ])('tax rate %d prints as %s', (rate, expected) => {
    expect(formatPercent(rate)).toBe(expected);
  });

  it('groups quantities and prints dates day first', () => {
    expect(formatQuantity(1200)).toBe('1,200');
    expect(formatDate('2026-01-05')).toBe('5 Jan 2026');
    expect(formatDate('2026-12-31')).toBe('31 Dec 2026');
  });

  it('uses a sign where one is unambiguous and the code elsewhere', () => {
    expect(['USD', 'EUR', 'GBP', 'JPY', 'KWD', 'CHF'].map(currencySymbol)).toEqual(['$', '€', '£', '¥', 'KWD', 'CHF']);
  });
});
