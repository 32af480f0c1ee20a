import { describe, expect, it } from 'vitest';
import { formatsFor, minorDecimalToDecimal, minorToDecimal } from './formats.ts';

describe('minorToDecimal', () => {
  it.each([
    [186686, 'EUR', '1866.86'],
    [-500, 'USD', '-5.00'],
    [5, 'EUR', '0.05'],
    [1235, 'JPY', '1235'],
    [1250, 'KWD', '1.250'],
    [Number.MAX_SAFE_INTEGER, 'EUR', '90071992547409.91'],
  ])('%i %s → %s', (minor, currency, expected) => {
    expect(minorToDecimal(minor, currency)).toBe(expected);
  });

  it('refuses what is not an integer', () => {
    expect(() => minorToDecimal(1.5, 'EUR')).toThrow(RangeError);
  });
});

// CLDR as bundled with Node's ICU; \u00a0 and \u202f are the no-break spaces CLDR puts in these formats.
describe('minorDecimalToDecimal', () => {
  it.each([
    ['0.125', 'EUR', '0.00125'],
    ['1500', 'EUR', '15.00'],
    ['0', 'EUR', '0.00'],
    ['12.5', 'EUR', '0.125'],
    ['1500', 'JPY', '1500'],
    ['0.5', 'JPY', '0.5'],
    ['1250.5', 'KWD', '1.2505'],
    ['123456789012345.123456', 'EUR', '1234567890123.45123456'],
  ])('%s minor units of %s → %s', (minor, currency, expected) => {
    expect(minorDecimalToDecimal(minor, currency)).toBe(expected);
  });

  it('refuses what is not a non-negative decimal', () => {
    expect(() => minorDecimalToDecimal('-1', 'EUR')).toThrow(RangeError);
    expect(() => minorDecimalToDecimal('1e3', 'EUR')).toThrow(RangeError);
  });
});

describe('formatsFor', () => {
  it.each([
    ['en', '€1,866.86', 'Nov 26, 2026', '7.5%'],
    ['en-GB', '€1,866.86', '26 Nov 2026', '7.5%'],
    ['de', '1.866,86\u00a0€', '26.11.2026', '7,5\u00a0%'],
    ['de-AT', '€\u00a01.866,86', '26.11.2026', '7,5\u00a0%'],
    ['fr', '1\u202f866,86\u00a0€', '26 nov. 2026', '7,5\u00a0%'],
    ['es', '1866,86\u00a0€', '26 nov 2026', '7,5\u00a0%'],
    ['it', '1866,86\u00a0€', '26 nov 2026', '7,5%'],
    ['nl', '€\u00a01.866,86', '26 nov 2026', '7,5%'],
  ])('%s writes money, dates and rates its own way', (locale, money, date, percent) => {
    const formats = formatsFor(locale);
    expect(formats.money(186686, 'EUR')).toBe(money);
    expect(formats.date('2026-11-26')).toBe(date);
    expect(formats.percent(7.5)).toBe(percent);
  });

  it('keeps every digit of large and fractional values', () => {
    const de = formatsFor('de');
    expect(de.money(123456789012345, 'EUR')).toBe('1.234.567.890.123,45\u00a0€');
    expect(de.decimal('0.125')).toBe('0,125');
    expect(de.decimal(1200)).toBe('1.200');
    expect(formatsFor('en').money(1250, 'KWD')).toBe('KWD\u00a01.250');
  });

  it.each([
    ['en', '€0.00125', '€15.00', '7.5 hours', '2 kg'],
    ['de', '0,00125\u00a0€', '15,00\u00a0€', '7,5 Stunden', '2 kg'],
    ['fr', '0,00125\u00a0€', '15,00\u00a0€', '7,5\u00a0heures', '2\u202fkg'],
    ['nl', '€\u00a00,00125', '€\u00a015,00', '7,5 uur', '2 kg'],
  ])('%s writes unit prices with all their decimals and quantities with their unit', (locale, small, whole, hours, kilograms) => {
    const formats = formatsFor(locale);
    expect(formats.unitPrice('0.125', 'EUR')).toBe(small);
    expect(formats.unitPrice('1500', 'EUR')).toBe(whole);
    expect(formats.measure('7.5', 'hour')).toBe(hours);
    expect(formats.measure('2', 'kilogram')).toBe(kilograms);
  });

  it('refuses a date that is not ISO 8601', () => {
    expect(() => formatsFor('en').date('26/11/2026')).toThrow(RangeError);
  });
});
