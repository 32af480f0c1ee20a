import { describe, expect, it } from 'vitest';
import { isCreditorReference, remittanceReferenceOf } from './remittance-reference.domain.ts';

describe('remittanceReferenceOf', () => {
  it.each([
    // The example of ISO 11649 itself (and of the EPC's guidance): reference 539007547034.
    ['539007547034', 'RF18539007547034'],
    ['INV/2026/0001', 'RF16INV20260001'],
    ['inv-2026-0001', 'RF16INV20260001'],
    ['2026-0001', 'RF3120260001'],
    // More than 21 letters and digits: the last 21, where the sequence is.
    ['ACME-WIDGETS-EUROPE/2026/12/000123', 'RF69ETSEUROPE202612000123'],
  ])('%s → %s', (number, expected) => {
    const sut = remittanceReferenceOf(number);
    expect(sut).toBe(expected);
    expect(isCreditorReference(sut!)).toBe(true);
    expect(sut!.length).toBeLessThanOrEqual(25);
  });

  it('has no reference for a number without letters or digits', () => {
    expect(remittanceReferenceOf('//--')).toBeNull();
  });

  it.each([
    ['RF18 5390 0754 7034', true],
    ['rf18539007547034', true],
    ['RF19539007547034', false],
    ['RF00539007547034', false],
    ['INV20260001', false],
  ])('isCreditorReference(%s) = %s', (text, valid) => {
    expect(isCreditorReference(text)).toBe(valid);
  });
});
