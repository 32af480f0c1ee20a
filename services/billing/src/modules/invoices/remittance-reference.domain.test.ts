import { describe, expect, it } from 'vitest';
import { isCreditorReference, remittanceReferenceOf } from './remittance-reference.domain.ts';

/**
 * ISO 11649's check, computed here without the library: `RF` and the check digits moved to the
 * end, letters as numbers (A = 10 … Z = 35), ISO 7064 MOD 97-10 of the whole must be 1.
 */
const mod97 = (reference: string): bigint => {
  const moved = reference.slice(4) + reference.slice(0, 4);
  return BigInt([...moved].map((char) => (char >= 'A' && char <= 'Z' ? String(char.charCodeAt(0) - 55) : char)).join('')) % 97n;
};

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
    expect(mod97(sut!)).toBe(1n);
    expect(sut!.length).toBeLessThanOrEqual(25);
  });

  it.each([
    // python-stdnum's documentation of ISO 11649 (stdnum.iso11649): RF18 5390 0754 7034 and RF18 5390 0754 70Y.
    ['5390075470Y', 'RF185390075470Y'],
    // The example of Maric Services' SEPA creditor reference validator (maric.info/fin/SEPA/scchken.htm).
    ['12345678', 'RF2012345678'],
  ])('gives the published reference of %s: %s', (number, expected) => {
    expect(remittanceReferenceOf(number)).toBe(expected);
    expect(mod97(expected)).toBe(1n);
  });

  it('has no reference for a number without letters or digits', () => {
    expect(remittanceReferenceOf('//--')).toBeNull();
  });

  it.each([
    ['RF18 5390 0754 7034', true],
    ['rf18539007547034', true],
    ['RF19539007547034', false],
    // python-stdnum's example of a wrong check digit.
    ['RF17 5390 0754 7034', false],
    ['RF00539007547034', false],
    ['INV20260001', false],
  ])('isCreditorReference(%s) = %s', (text, valid) => {
    expect(isCreditorReference(text)).toBe(valid);
  });
});
