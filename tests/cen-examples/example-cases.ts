import { readFileSync } from 'node:fs';
import { type BusinessTerms, comparePaths, extractBusinessTerms, syntaxOf, termOf } from './business-terms.ts';
import { listExamples } from './cen-examples.ts';
import { fieldsMissingFromContracts, translateExample, type Translation } from './example-translator.ts';

export interface ExampleCase {
  name: string;
  syntax: 'ubl' | 'cii';
  /** Why the example is not rebuilt at all (a credit note), or null. */
  skipped: string | null;
  terms: BusinessTerms;
  translation: Translation | null;
  /** The API fields the case needs that are not on main yet (contracts, or implementation). */
  awaited: string[];
  /** The terms (without indexes) the translation declares not expressible. */
  notExpressibleTerms: string[];
}

/** Every CEN example, read and translated (no system needed). */
export const loadExampleCases = (): ExampleCase[] =>
  listExamples().map(({ name, syntax, path }) => {
    const xml = readFileSync(path);
    if (syntaxOf(xml) === 'ubl-credit-note') {
      return { name, syntax, skipped: 'a credit note: decisions.md keeps credit notes out ("The service exposes no credit notes")', terms: new Map(), translation: null, awaited: [], notExpressibleTerms: [] };
    }
    const embedded = new Map<number, string>();
    const terms = extractBusinessTerms(xml, embedded);
    const translation = translateExample(terms, embedded);
    const awaited = fieldsMissingFromContracts(translation.fields).sort();
    const notExpressibleTerms = [...new Set(translation.notExpressible.map((entry) => termOf(entry.path)))].sort(comparePaths);
    return { name, syntax, skipped: null, terms, translation, awaited, notExpressibleTerms };
  });
