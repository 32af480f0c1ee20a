import { describe, expect, it } from 'vitest';
import { priceOf, quantityOf } from './einvoice-amounts.domain.ts';

describe('priceOf: a net price (BT-146) in minor units, written in major units exactly', () => {
  it.each([
    ['9500', 'EUR', '95.00'],
    ['0', 'EUR', '0.00'],
    ['5', 'EUR', '0.05'],
    ['0.125', 'EUR', '0.00125'],
    ['12.5', 'EUR', '0.125'],
    ['1999.500000', 'EUR', '19.995'],
    ['123456789012.123456', 'EUR', '1234567890.12123456'],
    ['1235', 'JPY', '1235'],
    ['12.5', 'JPY', '12.5'],
    ['1250', 'KWD', '1.250'],
    ['0.5', 'KWD', '0.0005'],
    ['007', 'EUR', '0.07'],
  ])('%s %s → %s', (minor, currency, written) => {
    expect(priceOf(minor, currency)).toBe(written);
  });

  it('refuses what is not a non-negative decimal', () => {
    for (const bad of ['-1', '1e3', '', '1.', '.5', '1,5']) expect(() => priceOf(bad, 'EUR')).toThrow(RangeError);
  });
});

describe('quantityOf: a quantity without trailing zeros', () => {
  it.each([
    ['12', '12'],
    ['7.5', '7.5'],
    ['7.5000', '7.5'],
    ['1.0000', '1'],
    ['0.0001', '0.0001'],
    ['0100', '100'],
  ])('%s → %s', (quantity, written) => {
    expect(quantityOf(quantity)).toBe(written);
  });
});
