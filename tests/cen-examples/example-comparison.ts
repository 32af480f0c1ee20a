import { type BusinessTerms, comparePaths, termOf } from './business-terms.ts';
import { addDecimal } from './exact-decimal.ts';
import { ruleOf, type Translation } from './example-translator.ts';

/** The creditor reference finalization gives every invoice (ISO 11649). */
const CREDITOR_REFERENCE = /^RF\d{2}[0-9A-Z]{1,21}$/;
/** The default series: a fresh workspace's invoices are INV/<year of finalization>/0001, … */
const SERIES_NUMBER = /^INV\/\d{4}\/\d{4,}$/;
const EN16931_SPECIFICATION = 'urn:cen.eu:en16931:2017';

/**
 * The terms our system sets itself, compared by rule (decisions.md, "Numbering", "Payments and bank
 * statements"): true when our value follows it. `ours` is the whole export, for rules that refer
 * to another of its terms.
 */
const DERIVED_RULES: Record<string, (value: string | undefined, ours: BusinessTerms, path: string) => boolean> = {
  'BT-1': (value) => value !== undefined && SERIES_NUMBER.test(value),
  'BT-3': (value) => value === '380',
  'BT-24': (value) => value === EN16931_SPECIFICATION,
  // UBL states the remittance information inside its payment means: an export without any has none.
  'BT-83': (value, ours) => (value !== undefined && CREDITOR_REFERENCE.test(value)) || (value === undefined && !ours.has('BT-81')),
  'BG-24/BT-122': (value) => value !== undefined && value !== '',
  'BG-25/BT-126': (value, _ours, path) => value === String(Number(/^BG-25\[(\d+)\]/.exec(path)![1]) + 1),
};

/**
 * Terms our export states when the example has none: defaults decisions.md gives them. True when
 * our value is that default.
 */
const ADDED_RULES: Record<string, (value: string, ours: BusinessTerms, path: string) => boolean> = {
  // The seller identifier the export derives when there is no VAT identifier (BR-CO-26).
  'BT-29': (value, ours) => [ours.get('BT-31'), ours.get('BT-32'), ours.get('BT-34')].includes(value),
  'BT-29-1': (_value, ours) => ours.has('BT-29[0]'),
  // Electronic addresses default to the e-mail address, scheme EM.
  'BT-34': (value, ours) => value === ours.get('BT-43'),
  'BT-34-1': (value) => value === 'EM',
  'BT-49': (value, ours) => value === ours.get('BT-58'),
  'BT-49-1': (value) => value === 'EM',
  // The delivery date defaults to the issue date (when no service period is set).
  'BT-72': (value, ours) => value === ours.get('BT-2') && !ours.has('BT-73'),
  'BT-83': (value) => CREDITOR_REFERENCE.test(value),
  // A line discount states its base (the line subtotal), reason and code.
  'BG-25/BG-27/BT-137': (value, ours, path) => {
    const line = /^BG-25\[\d+\]/.exec(path)![0];
    const allowance = path.replace(/\/BT-137$/, '');
    return value === addDecimal(ours.get(`${line}/BT-131`) ?? '0', ours.get(`${allowance}/BT-136`) ?? '0');
  },
  'BG-25/BG-27/BT-139': (value) => value === 'Discount',
  'BG-25/BG-27/BT-140': (value) => value === '95',
};

/**
 * Values EN 16931 gives a term that is left out: a document that states one explicitly matches one
 * that leaves it out (a price per 1 unit of the line's unit, nothing prepaid, no rounding), either way.
 */
const DEFAULTS: Record<string, (terms: BusinessTerms, path: string) => string | undefined> = {
  'BG-25/BT-149': () => '1',
  'BG-25/BT-150': (terms, path) => terms.get(path.replace(/BT-150$/, 'BT-130')),
  'BT-107': () => '0',
  'BT-108': () => '0',
  'BT-113': () => '0',
  'BT-114': () => '0',
};

/**
 * The VAT breakdown is a set, one entry per category and rate (BR-CO-17 and the syntaxes impose
 * no order): its entries are keyed by category and rate, `BG-23[S 25]/BT-117`, on both sides.
 */
export const keyVatBreakdown = (terms: BusinessTerms): BusinessTerms => {
  const keys = new Map<string, string>();
  for (const [path, value] of terms) {
    const match = /^BG-23\[(\d+)\]\/BT-118$/.exec(path);
    if (match) keys.set(match[1]!, `${value} ${terms.get(`BG-23[${match[1]}]/BT-119`) ?? '-'}`);
  }
  return new Map([...terms].map(([path, value]) => [path.replace(/^BG-23\[(\d+)\]/, (whole, index: string) => (keys.has(index) ? `BG-23[${keys.get(index)}]` : whole)), value]));
};

export interface Comparison {
  /** Paths whose values are equal. */
  equal: string[];
  /** Derived paths whose value follows our rule. */
  derived: string[];
  /** Paths only our export has, holding the default decisions.md gives them. */
  added: string[];
  /** Paths that differ and that the translation declared not expressible. */
  declared: string[];
  /** What is wrong: a derived term off its rule, or a difference nobody declared. */
  problems: string[];
}

/** Every term of the example against our export of it. */
export const compareWithExample = (exampleAsRead: BusinessTerms, oursAsRead: BusinessTerms, translation: Translation): Comparison => {
  const example = keyVatBreakdown(exampleAsRead);
  const ours = keyVatBreakdown(oursAsRead);
  const notExpressible = new Set([...keyVatBreakdown(new Map(translation.notExpressible.map((entry) => [entry.path, entry.reason] as const))).keys()]);
  const result: Comparison = { equal: [], derived: [], added: [], declared: [], problems: [] };
  for (const path of [...new Set([...example.keys(), ...ours.keys()])].sort(comparePaths)) {
    const expected = example.get(path);
    const actual = ours.get(path);
    const term = termOf(path);
    const derived = DERIVED_RULES[term];
    if (derived !== undefined && !notExpressible.has(path) && (expected !== undefined || actual !== undefined)) {
      if (derived(actual, ours, path)) result.derived.push(path);
      else result.problems.push(`${path}: ${JSON.stringify(actual)} does not follow the rule "${'derived' in ruleOf(path) ? (ruleOf(path) as { derived: string }).derived : term}" (example: ${JSON.stringify(expected)})`);
      continue;
    }
    const atDefault = (value: string | undefined, terms: BusinessTerms) => value !== undefined && value === DEFAULTS[term]?.(terms, path);
    if (expected === actual || (actual === undefined && atDefault(expected, example)) || (expected === undefined && atDefault(actual, ours))) result.equal.push(path);
    else if (notExpressible.has(path)) result.declared.push(path);
    else if (expected === undefined && actual !== undefined && ADDED_RULES[term]?.(actual, ours, path)) result.added.push(path);
    else result.problems.push(`${path}: example ${JSON.stringify(expected)}, ours ${JSON.stringify(actual)}`);
  }
  return result;
};
