import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { canonicalDecimal, diffBusinessTerms, extractBusinessTerms } from './business-terms.ts';
import { exampleFile } from './cen-examples.ts';

/**
 * The CEN examples come in pairs, `ubl-tc434-exampleN.xml` and `CII_exampleN.xml`, each pair
 * describing one invoice in the two syntaxes. Reading both must give the same business terms: the
 * two syntax bindings of the extractor then agree with each other and with the examples' authors.
 * Where the authors wrote different data into the two files, the path is listed here (checked by
 * hand against both files), so that every other term must agree and each listed one must differ.
 */
const PAIRS: Record<number, { agreeing: number; differing: string[]; why: string }> = {
  1: {
    agreeing: 194,
    why: 'UBL unit EA where CII has H87, two item names spelt differently, the note subject code only in CII, another second account',
    differing: ['BG-1[0]/BT-21', 'BG-1[0]/BT-22', 'BG-17[1]/BT-84', 'BG-25[1]/BT-153', 'BG-25[12]/BT-153', ...range(20).map((line) => `BG-25[${line}]/BT-130`)],
  },
  2: {
    agreeing: 171,
    why: 'different attachments, quantities, base quantities, classifications, allowance reason code, tax point date (UBL) against tax point date code (CII)',
    differing: [
      'BG-17[1]/BT-84', 'BG-20[0]/BT-98', 'BG-24[0]/BT-125', 'BG-24[0]/BT-125-1', 'BG-24[0]/BT-125-2', 'BG-24[1]/BT-122', 'BG-24[1]/BT-123', 'BG-24[1]/BT-125',
      'BG-24[1]/BT-125-1', 'BG-24[1]/BT-125-2', 'BG-25[0]/BT-129', 'BG-25[0]/BT-130', 'BG-25[0]/BT-135', 'BG-25[0]/BT-148', 'BG-25[0]/BT-149', 'BG-25[0]/BT-150',
      'BG-25[0]/BT-158-1[0]', 'BG-25[0]/BT-158-1[1]', 'BG-25[0]/BT-158[0]', 'BG-25[0]/BT-158[1]', 'BG-25[1]/BT-130', 'BG-25[1]/BT-149', 'BG-25[1]/BT-150',
      'BG-25[1]/BT-158-1[0]', 'BG-25[1]/BT-158-1[1]', 'BG-25[1]/BT-158[0]', 'BG-25[1]/BT-158[1]', 'BG-25[2]/BT-130', 'BG-25[2]/BT-147', 'BG-25[2]/BT-148',
      'BG-25[2]/BT-149', 'BG-25[2]/BT-150', 'BG-25[2]/BT-157', 'BG-25[2]/BT-158-1[0]', 'BG-25[2]/BT-158-1[1]', 'BG-25[2]/BT-158[0]', 'BG-25[2]/BT-158[1]',
      'BG-25[3]/BT-130', 'BG-25[3]/BT-149', 'BG-25[3]/BT-150', 'BG-25[3]/BT-158-1[0]', 'BG-25[3]/BT-158-1[1]', 'BG-25[3]/BT-158[0]', 'BG-25[3]/BT-158[1]',
      'BG-25[4]/BT-132', 'BG-25[4]/BT-149', 'BG-25[4]/BT-158-1[0]', 'BG-25[4]/BT-158-1[1]', 'BG-25[4]/BT-158[1]', 'BT-7', 'BT-8', 'BT-23', 'BT-60-1',
    ],
  },
  3: {
    agreeing: 44,
    why: 'the CII file has one line of the two (and its totals), no seller identifier, buyer legal registration or VAT id',
    differing: [
      'BG-21[0]/BT-105', 'BG-23[1]/BT-116', 'BG-23[1]/BT-117', 'BG-23[1]/BT-118', 'BG-23[1]/BT-119', 'BG-25[0]/BT-129', 'BG-25[0]/BT-130', 'BG-25[1]/BT-126',
      'BG-25[1]/BT-129', 'BG-25[1]/BT-130', 'BG-25[1]/BT-131', 'BG-25[1]/BT-146', 'BG-25[1]/BT-151', 'BG-25[1]/BT-152', 'BG-25[1]/BT-153', 'BG-25[1]/BT-154',
      'BT-29-1[0]', 'BT-29[0]', 'BT-47', 'BT-48', 'BT-106', 'BT-109', 'BT-110', 'BT-112', 'BT-115',
    ],
  },
  4: { agreeing: 74, why: 'unit EA against C62, another seller e-mail, a second account only in CII', differing: ['BG-17[1]/BT-84', 'BG-25[0]/BT-130', 'BG-25[1]/BT-130', 'BG-25[2]/BT-130', 'BT-43'] },
  5: {
    agreeing: 159,
    why: 'UBL pays by direct debit (49), CII by credit transfer (58); the tender reference and object identifier lack their type codes in CII; periods, units and reason codes differ',
    differing: [
      'BG-1[0]/BT-21', 'BG-1[0]/BT-22', 'BG-17[0]/BT-84', 'BG-17[1]/BT-84', 'BG-20[0]/BT-98', 'BG-24[0]/BT-122', 'BG-24[0]/BT-123', 'BG-24[0]/BT-125',
      'BG-24[0]/BT-125-1', 'BG-24[0]/BT-125-2', 'BG-24[1]/BT-122', 'BG-24[1]/BT-123', 'BG-24[1]/BT-125', 'BG-24[1]/BT-125-1', 'BG-24[1]/BT-125-2',
      'BG-25[0]/BG-27[0]/BT-140', 'BG-25[0]/BT-128', 'BG-25[0]/BT-130', 'BG-25[0]/BT-135', 'BG-25[0]/BT-147', 'BG-25[0]/BT-150', 'BG-25[0]/BT-158-1[0]',
      'BG-25[0]/BT-158[0]', 'BG-25[1]/BT-127', 'BG-25[1]/BT-128', 'BG-25[1]/BT-130', 'BG-25[1]/BT-135', 'BG-25[2]/BT-130', 'BT-7', 'BT-17', 'BT-23', 'BT-71-1',
      'BT-81', 'BT-82', 'BT-90', 'BT-91',
    ],
  },
  6: { agreeing: 45, why: 'unit EA against C62', differing: ['BG-25[0]/BT-130', 'BG-25[1]/BT-130', 'BG-25[2]/BT-130'] },
  7: {
    agreeing: 56,
    why: 'another issue date and buyer contact, the zero VAT total only in UBL, a second account only in CII',
    differing: ['BG-17[1]/BT-84', 'BG-25[0]/BT-130', 'BG-25[1]/BT-130', 'BT-2', 'BT-56', 'BT-110'],
  },
  8: {
    agreeing: 175,
    why: 'the object identifier is a supporting document in UBL (no type code 130); price base quantities and units differ',
    differing: [
      'BG-17[1]/BT-84', 'BG-24[0]/BT-122', 'BG-24[0]/BT-123', 'BG-25[0]/BT-149', 'BG-25[1]/BT-149', 'BG-25[2]/BT-130', 'BG-25[2]/BT-149', 'BG-25[2]/BT-150',
      'BG-25[3]/BT-130', 'BG-25[3]/BT-149', 'BG-25[3]/BT-150', 'BG-25[4]/BT-149', 'BG-25[5]/BT-149', 'BG-25[6]/BT-149', 'BG-25[7]/BT-149', 'BG-25[8]/BT-149',
      'BG-25[9]/BT-149', 'BT-7', 'BT-18',
    ],
  },
  9: {
    agreeing: 45,
    why: 'the period is the invoice’s in UBL and the line’s in CII; another due date and base quantity',
    differing: ['BG-17[1]/BT-84', 'BG-25[0]/BT-134', 'BG-25[0]/BT-135', 'BG-25[0]/BT-149', 'BT-9', 'BT-73', 'BT-74'],
  },
};

function range(count: number): number[] {
  return Array.from({ length: count }, (_, index) => index);
}

describe('business terms of the CEN example pairs', () => {
  it.each(Object.entries(PAIRS))('example %s: UBL and CII give the same terms except where the two files differ', (number, pair) => {
    const ubl = extractBusinessTerms(readFileSync(exampleFile(`ubl-tc434-example${number}.xml`)));
    const cii = extractBusinessTerms(readFileSync(exampleFile(`CII_example${number}.xml`)));
    const differing = diffBusinessTerms(ubl, cii).map((difference) => difference.path);
    expect(differing.sort(), pair.why).toEqual([...pair.differing].sort());
    expect([...ubl.keys()].filter((path) => ubl.get(path) === cii.get(path))).toHaveLength(pair.agreeing);
  });

  it('reads every group of the model from both syntaxes: parties, payment, allowances, charges, VAT, documents, lines, prices, items', () => {
    const terms = extractBusinessTerms(readFileSync(exampleFile('CII_example5.xml')));
    expect(Object.fromEntries([...terms].filter(([path]) => !path.startsWith('BG-25')))).toMatchObject({
      'BT-1': 'TOSL110',
      'BT-2': '2013-04-10',
      'BT-5': 'DKK',
      'BT-13': 'PO4711',
      'BT-27': 'SellerCompany',
      'BT-31': 'NL16356706',
      'BT-59': 'Dagobert Duck',
      'BT-106': '4000',
      'BT-115': '2337.5',
      'BG-23[0]/BT-116': '1500',
      'BG-23[0]/BT-117': '375',
      'BG-23[0]/BT-118': 'S',
      'BG-23[0]/BT-119': '25',
    });
    const ubl = extractBusinessTerms(readFileSync(exampleFile('ubl-tc434-example2.xml')));
    expect(ubl.get('BG-20[0]/BT-92')).toBe('100');
    expect(ubl.get('BG-21[0]/BT-99')).toBe('100');
    expect(ubl.get('BG-25[2]/BT-129')).toBe('2');
    expect(ubl.get('BG-24[0]/BT-124')).toBe('http://www.suppliersite.eu/sheet001.html');
    expect(ubl.get('BG-24[1]/BT-125')).toMatch(/^sha256:[0-9a-f]{64}$/);
  });

  it('spells each amount one way, exactly', () => {
    expect(['1000.00', '1000', '+1000.0', '0.50', '-0.0', '007.10', '.5'].map(canonicalDecimal)).toEqual(['1000', '1000', '1000', '0.5', '0', '7.1', '0.5']);
  });
});
