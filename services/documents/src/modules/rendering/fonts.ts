import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const WEIGHTS = [400, 700] as const;

interface Subset {
  name: string;
  unicodeRange: string;
  ranges: [number, number][];
  faces: string;
}

const packageFile = (path: string): string => fileURLToPath(import.meta.resolve(`@fontsource/inter/${path}`));

const parseRanges = (unicodeRange: string): [number, number][] =>
  unicodeRange.split(',').map((part) => {
    const [from, to = from] = part.trim().replace(/^U\+/i, '').split('-');
    return [Number.parseInt(from!, 16), Number.parseInt(to!, 16)];
  });

const faceOf = (subset: string, unicodeRange: string, weight: number): string => {
  const woff2 = readFileSync(packageFile(`files/inter-${subset}-${weight}-normal.woff2`)).toString('base64');
  return `@font-face{font-family:'Inter';font-style:normal;font-weight:${weight};font-display:block;src:url(data:font/woff2;base64,${woff2}) format('woff2');unicode-range:${unicodeRange}}`;
};

const loadSubsets = (): Subset[] => {
  const ranges = JSON.parse(readFileSync(packageFile('unicode.json'), 'utf8')) as Record<string, string>;
  return Object.entries(ranges).map(([name, unicodeRange]) => ({
    name,
    unicodeRange,
    ranges: parseRanges(unicodeRange),
    faces: WEIGHTS.map((weight) => faceOf(name, unicodeRange, weight)).join('\n'),
  }));
};

let subsets: Subset[] | undefined;

const uses = (subset: Subset, codePoints: ReadonlySet<number>): boolean =>
  subset.name === 'latin' || [...codePoints].some((c) => subset.ranges.some(([from, to]) => c >= from && c <= to));

/**
 * `@font-face` rules for Inter (shipped in @fontsource/inter, embedded as data URLs), limited to
 * the subsets that `text` needs: the document never depends on the fonts a machine happens to
 * have, and a page or a PDF carries only the glyph sets it uses. Scripts Inter lacks (CJK, for
 * one) still fall back to a system font.
 */
export const fontFacesFor = (text: string): string => {
  subsets ??= loadSubsets();
  const codePoints = new Set<number>();
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (code > 0x7f) codePoints.add(code);
  }
  return subsets.filter((subset) => uses(subset, codePoints)).map((subset) => subset.faces).join('\n');
};
