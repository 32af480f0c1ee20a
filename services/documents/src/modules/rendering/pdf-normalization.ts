import { PDFString } from 'pdf-lib';

// Chromium's PDFs depend on the HTML and the fonts, except in two places that this module makes
// deterministic, so that a re-render from the same snapshot and template is byte-identical:
//  - the Info dictionary's `/CreationDate` and `/ModDate`, the moment of printing
//    (`D:YYYYMMDDHHmmSS+HH'mm'`), which get a date taken from the invoice instead;
//  - the structure tree of a tagged PDF, which names table header cells after the renderer's DOM
//    node ids (`node00000070`): a counter that keeps growing in a reused page. They are renumbered
//    in order of first appearance, and the ID name tree is re-sorted to match.
// Every replacement has the length of what it replaces, so no offset in the cross-reference
// table moves; anything that would break that is refused rather than written.
const DATE_ENTRY = /\/(CreationDate|ModDate) \((D:\d{14}[+\-Z][^)]*)\)/g;
const NODE_ID = /node\d+/g;
const NODE_ID_WIDTH = 8;
const ID_TREE_LEAF = /\/Limits \[\((node\d+)\) \((node\d+)\)\]\n\/Names \[([^\]]*)\]/g;
const NAME_PAIR = /\((node\d+)\) (\d+ \d+ R)/g;

/**
 * `D:20261120093000+00'00'`: a PDF date (ISO 32000 §7.9.4) in UTC, as pdf-lib writes it. pdf-lib
 * says UTC with a bare `Z`; Chromium's slot holds the offset form, `+HH'mm'`, and an in-place
 * replacement must keep its length, so UTC is spelled `+00'00'` (the same instant).
 */
export const toPdfDate = (at: Date): string => PDFString.fromDate(at).asString().replace(/Z$/, "+00'00'");

const sameLength = (original: string, replacement: string, what: string): string => {
  if (original.length !== replacement.length) throw new Error(`Cannot normalize ${what} "${original}": the replacement would move byte offsets`);
  return replacement;
};

const stampDates = (text: string, at: Date): string => {
  const stamp = toPdfDate(at);
  return text.replace(DATE_ENTRY, (entry, name: string, date: string) => `/${name} (${sameLength(date, stamp, 'the date')})`);
};

const renumberNodeIds = (text: string): string => {
  const renumbered = new Map<string, string>();
  for (const [id] of text.matchAll(NODE_ID)) {
    if (!renumbered.has(id)) renumbered.set(id, sameLength(id, `node${String(renumbered.size + 1).padStart(NODE_ID_WIDTH, '0')}`, 'the node id'));
  }
  const renamed = text.replace(NODE_ID, (id) => renumbered.get(id)!);
  // A name tree's keys must be sorted; the renumbering changed their order.
  return renamed.replace(ID_TREE_LEAF, (leaf, _first: string, _last: string, names: string) => {
    const pairs = [...names.matchAll(NAME_PAIR)].map(([, key, reference]) => [key!, reference!] as const).sort(([a], [b]) => (a < b ? -1 : 1));
    if (pairs.length === 0) return leaf;
    const sorted = `/Limits [(${pairs[0]![0]}) (${pairs.at(-1)![0]})]\n/Names [${pairs.map(([key, reference]) => `(${key}) ${reference}`).join(' ')}]`;
    return sameLength(leaf, sorted, 'the ID tree');
  });
};

/**
 * A copy of a PDF printed by Chromium with its print time replaced by `at` and its structure
 * ids renumbered: the same HTML always gives the same bytes.
 */
export const normalizePdf = (pdf: Buffer, at: Date): Buffer => {
  // latin1 maps every byte to one character and back, so binary streams survive the round trip.
  const text = pdf.toString('latin1');
  return Buffer.from(renumberNodeIds(stampDates(text, at)), 'latin1');
};
