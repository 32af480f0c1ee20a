import { PDFString } from 'pdf-lib';
import { describe, expect, it } from 'vitest';
import { normalizePdf, toPdfDate } from './pdf-normalization.ts';

const pdfWith = (created: string, modified: string) =>
  Buffer.concat([
    Buffer.from('%PDF-1.4\n%\xe2\xe3\xcf\xd3\n', 'latin1'),
    Buffer.from([0, 255, 128, 10]),
    Buffer.from(`<</Creator (Chromium)\n/Producer (Skia/PDF m153)\n/CreationDate (${created})\n/ModDate (${modified})>>\nxref\n`, 'latin1'),
  ]);

describe('normalizePdf', () => {
  const at = new Date('2026-11-20T09:30:00.000Z');

  it('replaces the print time with the given moment and leaves every other byte where it was', () => {
    const first = pdfWith("D:20261123001309+00'00'", "D:20261123001309+00'00'");
    const second = pdfWith("D:20270101235959-05'00'", "D:20270101235959-05'00'");
    const sut = [normalizePdf(first, at), normalizePdf(second, at)];
    expect(sut[0]!.equals(sut[1]!)).toBe(true);
    expect(sut[0]!.length).toBe(first.length);
    expect(sut[0]!.subarray(0, 20).equals(first.subarray(0, 20))).toBe(true);
    expect(sut[0]!.toString('latin1')).toContain("/CreationDate (D:20261120093000+00'00')\n/ModDate (D:20261120093000+00'00')");
  });

  it('refuses a date whose length would shift the cross-reference offsets', () => {
    expect(() => normalizePdf(pdfWith('D:20261123001309Z', 'D:20261123001309Z'), new Date())).toThrow(/byte offsets/);
  });

  it('renumbers structure ids in order of appearance and keeps the ID tree sorted', () => {
    const tagged = (ids: [string, string]) =>
      Buffer.from(
        `1 0 obj\n<</S /TH\n/ID (${ids[0]})>>\nendobj\n2 0 obj\n<</S /TH\n/ID (${ids[1]})>>\nendobj\n3 0 obj\n<</S /TD\n/A [<</O /Table\n/Headers [(${ids[0]})]>>]>>\nendobj\n` +
          `9 0 obj\n<</Limits [(${[...ids].sort()[0]}) (${[...ids].sort()[1]})]\n/Names [${[...ids].sort().map((id) => `(${id}) ${ids.indexOf(id) + 1} 0 R`).join(' ')}]>>\nendobj\n`,
        'latin1',
      );
    const early = normalizePdf(tagged(['node00000070', 'node00000005']), at);
    const late = normalizePdf(tagged(['node00000450', 'node00000449']), at);
    expect(early.equals(late)).toBe(true);
    expect(early.length).toBe(tagged(['node00000070', 'node00000005']).length);
    expect(early.toString('latin1')).toContain('/Headers [(node00000001)]');
    expect(early.toString('latin1')).toContain('/Limits [(node00000001) (node00000002)]\n/Names [(node00000001) 1 0 R (node00000002) 2 0 R]');
  });

  it('refuses an id whose renumbered form would be longer or shorter', () => {
    expect(() => normalizePdf(Buffer.from('<</ID (node123456789)>>', 'latin1'), at)).toThrow(/byte offsets/);
  });

  it('writes PDF dates in UTC', () => {
    expect(toPdfDate(new Date('2026-01-02T03:04:05.678Z'))).toBe("D:20260102030405+00'00'");
    expect(toPdfDate(new Date('2026-12-31T23:59:59+05:00'))).toBe("D:20261231185959+00'00'");
  });

  it('writes dates a PDF reader takes for the same instant, to the second', () => {
    const at = new Date('2026-11-20T09:30:07.999Z');
    expect(PDFString.of(toPdfDate(at)).decodeDate()).toEqual(new Date('2026-11-20T09:30:07.000Z'));
  });
});
