import { describe, expect, it } from 'vitest';
import { createStoredFileCache, type StoredFile } from './stored-file-cache.ts';

const file = (invoiceId: string, byteSize: number): StoredFile => ({ invoiceId, workspaceId: 'ws', byteSize, content: Buffer.alloc(byteSize) });

const createCache = (maxBytes: number) => createStoredFileCache<StoredFile>(maxBytes, (row) => ({ ...row }));

describe('the stored-file cache', () => {
  it('keeps the most recently used files within its byte budget', () => {
    const sut = createCache(100);
    sut.put('a', file('a', 40));
    sut.put('b', file('b', 40));
    sut.get('a');
    sut.put('c', file('c', 40));
    expect([sut.get('a')?.invoiceId, sut.get('b')?.invoiceId, sut.get('c')?.invoiceId]).toEqual(['a', undefined, 'c']);
    expect(sut.size()).toEqual({ entries: 2, bytes: 80 });
  });

  it('does not hold a file larger than its whole budget, nor one loaded without its bytes', () => {
    const sut = createCache(100);
    sut.put('huge', file('huge', 101));
    sut.put('summary', { ...file('summary', 10), content: undefined as unknown as Buffer });
    expect(sut.size()).toEqual({ entries: 0, bytes: 0 });
  });
});
