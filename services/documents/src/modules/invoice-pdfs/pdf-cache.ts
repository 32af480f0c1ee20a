import type { InvoicePdfRow } from './invoice-pdf.entity.ts';

/** What a cached document needs: its owner, its size and its bytes. */
export interface StoredFile {
  workspaceId: string;
  byteSize: number;
  content: Buffer;
}

/**
 * Stored documents kept in memory, least recently used out first, up to a byte budget. A stored
 * document never changes, so an entry is never stale: the cache only spares PostgreSQL the bytes.
 * `copyOf` makes a plain copy: the row may be an entity of a request's identity map, which ends with the request.
 */
export const createStoredFileCache = <Row extends StoredFile>(maxBytes: number, keyOf: (row: Row) => string, copyOf: (row: Row) => Row) => {
  const entries = new Map<string, Row>();
  let bytes = 0;
  return {
    /** The document under this key if cached; the caller still checks that it is the caller's workspace. */
    get: (key: string): Row | undefined => {
      const row = entries.get(key);
      if (row) {
        // Map order is insertion order: re-inserting marks it most recently used.
        entries.delete(key);
        entries.set(key, row);
      }
      return row;
    },
    put: (row: Row): void => {
      const key = keyOf(row);
      if (row.byteSize > maxBytes || entries.has(key) || !row.content) return;
      entries.set(key, copyOf(row));
      bytes += row.byteSize;
      for (const [oldest, evicted] of entries) {
        if (bytes <= maxBytes) break;
        entries.delete(oldest);
        bytes -= evicted.byteSize;
      }
    },
    /** Bytes held, for tests and metrics. */
    size: () => ({ entries: entries.size, bytes }),
  };
};

/** Stored PDFs in memory, by invoice. */
export const createPdfCache = (maxBytes: number) =>
  createStoredFileCache<InvoicePdfRow>(
    maxBytes,
    (row) => row.invoiceId,
    ({ invoiceId, workspaceId, number, templateVersion, sha256, byteSize, content, renderedAt }) => ({ invoiceId, workspaceId, number, templateVersion, sha256, byteSize, content, renderedAt }),
  );
export type PdfCache = ReturnType<typeof createPdfCache>;
