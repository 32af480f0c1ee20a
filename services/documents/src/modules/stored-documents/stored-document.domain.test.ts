import { describe, expect, it } from 'vitest';
import { contentDispositionOf, documentFileName, etagOf, ifNoneMatchHits } from './stored-document.domain.ts';

describe('a stored document as a file', () => {
  it.each([
    ['INV/2026/0042', 'Invoice-INV-2026-0042.pdf'],
    ['2026-17', 'Invoice-2026-17.pdf'],
    ['RÉF 12', 'Invoice-RÉF-12.pdf'],
    ['../../etc/passwd', 'Invoice-..-..-etc-passwd.pdf'],
    ['///', 'Invoice-document.pdf'],
  ])('names the file after invoice number %s', (number, expected) => {
    expect(documentFileName(number, 'pdf')).toBe(expected);
  });

  it('gives old clients an ASCII name and new ones the exact name', () => {
    expect(contentDispositionOf('INV/2026/0042')).toBe(`attachment; filename="Invoice-INV-2026-0042.pdf"; filename*=UTF-8''Invoice-INV-2026-0042.pdf`);
    expect(contentDispositionOf('RÉF 12')).toBe(`attachment; filename="Invoice-R_F-12.pdf"; filename*=UTF-8''Invoice-R%C3%89F-12.pdf`);
  });

  it('answers If-None-Match with the digest, quoted, in any of its forms', () => {
    const etag = etagOf('ab'.repeat(32));
    expect(ifNoneMatchHits(etag, etag)).toBe(true);
    expect(ifNoneMatchHits(`"other", W/${etag}`, etag)).toBe(true);
    expect(ifNoneMatchHits('*', etag)).toBe(true);
    expect(ifNoneMatchHits('"other"', etag)).toBe(false);
    expect(ifNoneMatchHits(undefined, etag)).toBe(false);
  });
});
