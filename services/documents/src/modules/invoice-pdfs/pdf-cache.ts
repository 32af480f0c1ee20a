import type { InvoicePdfRow } from './invoice-pdf.entity.ts';

/**
 * Stored PDFs kept in memory, least recently used out first, up to a byte budget. A stored PDF
 * never changes, so an entry is never stale: the cache only spares PostgreSQL the bytes.
 */
export const createPdfCache = (maxBytes: number) => {
  const entries = new Map<string, InvoicePdfRow>();
  let bytes = 0;
  return {
    /** The PDF of this invoice if cached; the caller still checks that it is the caller's workspace. */
    get: (invoiceId: string): InvoicePdfRow | undefined => {
      const row = entries.get(invoiceId);
      if (row) {
        // Map order is insertion order: re-inserting marks it most recently used.
        entries.delete(invoiceId);
        entries.set(invoiceId, row);
      }
      return row;
    },
    put: (row: InvoicePdfRow): void => {
      if (row.byteSize > maxBytes || entries.has(row.invoiceId) || !row.content) return;
      // A plain copy: the row may be an entity of a request's identity map, which ends with the request.
      const { invoiceId, workspaceId, number, templateVersion, sha256, byteSize, content, renderedAt } = row;
      entries.set(invoiceId, { invoiceId, workspaceId, number, templateVersion, sha256, byteSize, content, renderedAt });
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

export type PdfCache = ReturnType<typeof createPdfCache>;
