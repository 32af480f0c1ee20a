import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type BusinessTerms, extractBusinessTerms } from './business-terms.ts';
import { exampleFile } from './cen-examples.ts';
import { compareWithExample } from './example-comparison.ts';
import { translateExample } from './example-translator.ts';

/** CEN example 6 as our export of it would read: the example's terms with our number and remittance reference. */
const example = extractBusinessTerms(readFileSync(exampleFile('ubl-tc434-example6.xml')));
const translation = translateExample(example);
const asExported = (changes: Record<string, string | undefined>): BusinessTerms => {
  const ours = new Map(example);
  ours.set('BT-1', 'INV/2026/0001');
  ours.set('BT-83', 'RF18INV20260001');
  for (const [path, value] of Object.entries(changes)) {
    if (value === undefined) ours.delete(path);
    else ours.set(path, value);
  }
  return ours;
};

describe('comparing an export with its example', () => {
  it('accepts our number and remittance reference by rule, and every other term equal', () => {
    const comparison = compareWithExample(example, asExported({}), translation);
    expect(comparison.problems).toEqual([]);
    expect(comparison.derived).toEqual(expect.arrayContaining(['BT-1', 'BT-83', 'BG-25[0]/BT-126']));
    expect(comparison.equal).toEqual(expect.arrayContaining(['BT-106', 'BT-115', 'BG-25[0]/BT-131']));
  });

  it('reports an amount one unit off, a missing term, an added term and a number outside the series', () => {
    const total = example.get('BT-115')!;
    const comparison = compareWithExample(example, asExported({ 'BT-115': `${total}1`, 'BT-44': undefined, 'BT-19': 'CC-1', 'BT-1': 'TOSL110' }), translation);
    expect(comparison.problems).toEqual([
      expect.stringMatching(/^BT-1: "TOSL110" does not follow the rule/),
      'BT-19: example undefined, ours "CC-1"',
      'BT-44: example "Buyercompany ltd", ours undefined',
      `BT-115: example "${total}", ours "${total}1"`,
    ]);
  });

  it('takes the VAT breakdown in any order, and the defaults EN 16931 gives to terms left out', () => {
    const ours = asExported({ 'BG-25[0]/BT-149': undefined });
    const example2 = new Map(example).set('BG-25[0]/BT-149', '1');
    expect(compareWithExample(example2, ours, translation).problems).toEqual([]);
    const reordered = new Map(
      [...ours].map(([path, value]) => [path.replace(/^BG-23\[0\]/, 'BG-23[9]').replace(/^BG-23\[1\]/, 'BG-23[0]').replace(/^BG-23\[9\]/, 'BG-23[1]'), value]),
    );
    expect(compareWithExample(example, reordered, translation).problems).toEqual([]);
    expect(compareWithExample(example, asExported({ 'BT-113': '0', 'BG-25[1]/BT-149': '1', 'BG-25[1]/BT-150': example.get('BG-25[1]/BT-130')! }), translation).problems).toEqual([]);
  });
});
