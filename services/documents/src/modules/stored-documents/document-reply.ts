import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDispositionOf, etagOf, ifNoneMatchHits } from './stored-document.domain.ts';

/** What a stored document answer needs: its digest, its bytes, and the invoice number that names the file. */
export interface StoredDocument {
  sha256: string;
  number: string;
  content: Buffer;
}

/**
 * Answers with a stored document: its digest as the ETag (304 when the client holds it already),
 * and a download named after the invoice number. The bytes never change, but unless the route says
 * otherwise they are only revalidated, never kept by shared caches: the invoice belongs to one workspace.
 */
export const replyWithDocument = (
  request: FastifyRequest,
  reply: FastifyReply,
  document: StoredDocument,
  { contentType, extension }: { contentType: string; extension: string },
): FastifyReply | Buffer => {
  const etag = etagOf(document.sha256);
  reply.header('etag', etag).header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  reply.type(contentType).header('content-disposition', contentDispositionOf(document.number, extension));
  return document.content;
};
