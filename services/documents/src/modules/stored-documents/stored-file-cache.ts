/** What a stored document row has, whatever its kind: its invoice and owner, its size and its bytes. */
export interface StoredFile {
  invoiceId: string;
  workspaceId: string;
  byteSize: number;
  content: Buffer;
}

/**
 * Stored documents kept in memory, least recently used out first, up to a byte budget. A stored
 * document never changes, so an entry is never stale: the cache only spares PostgreSQL the bytes.
 * `copyOf` makes a plain copy: the row may be an entity of a request's identity map, which ends with the request.
 */
export const createStoredFileCache = <Row extends StoredFile>(maxBytes: number, copyOf: (row: Row) => Row) => {
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
    put: (key: string, row: Row): void => {
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
export type StoredFileCache<Row extends StoredFile> = ReturnType<typeof createStoredFileCache<Row>>;
