/** `Invoice-INV-2026-0042.pdf`: the number with anything a file name cannot hold turned into dashes. */
export const documentFileName = (invoiceNumber: string, extension: string): string =>
  `Invoice-${invoiceNumber.replace(/[^\p{L}\p{N}._-]+/gu, '-').replace(/^-+|-+$/g, '') || 'document'}.${extension}`;

/**
 * `attachment` with the file name twice (RFC 6266): plain ASCII for old clients, and UTF-8 for
 * numbers with letters beyond ASCII.
 */
export const contentDispositionOf = (invoiceNumber: string, extension = 'pdf'): string => {
  const name = documentFileName(invoiceNumber, extension);
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
};

/** The strong ETag of a stored document: its SHA-256. */
export const etagOf = (sha256: string): string => `"${sha256}"`;

/** Whether an `If-None-Match` header names this ETag (or `*`); weak and strong forms compare alike for GET. */
export const ifNoneMatchHits = (header: string | string[] | undefined, etag: string): boolean => {
  if (header === undefined) return false;
  const tags = (Array.isArray(header) ? header.join(',') : header).split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(etag);
};
