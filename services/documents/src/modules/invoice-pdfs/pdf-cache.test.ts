import { describe, expect, it } from 'vitest';
import type { InvoicePdfRow } from './invoice-pdf.entity.ts';
import { createPdfCache } from './pdf-cache.ts';

const pdf = (invoiceId: string, byteSize: number): InvoicePdfRow => ({
  invoiceId,
  workspaceId: 'ws',
  number: invoiceId,
  templateVersion: 'v1',
  sha256: '0'.repeat(64),
  byteSize,
  content: Buffer.alloc(byteSize),
  renderedAt: new Date(0),
});

describe('the stored-PDF cache', () => {
  it('keeps the most recently used PDFs within its byte budget', () => {
    const sut = createPdfCache(100);
    sut.put(pdf('a', 40));
    sut.put(pdf('b', 40));
    sut.get('a');
    sut.put(pdf('c', 40));
    expect([sut.get('a')?.invoiceId, sut.get('b')?.invoiceId, sut.get('c')?.invoiceId]).toEqual(['a', undefined, 'c']);
    expect(sut.size()).toEqual({ entries: 2, bytes: 80 });
  });

  it('does not hold a PDF larger than its whole budget, nor one loaded without its bytes', () => {
    const sut = createPdfCache(100);
    sut.put(pdf('huge', 101));
    sut.put({ ...pdf('summary', 10), content: undefined as unknown as Buffer });
    expect(sut.size()).toEqual({ entries: 0, bytes: 0 });
  });
});
