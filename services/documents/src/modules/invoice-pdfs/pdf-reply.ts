import { PDF_CONTENT_TYPE } from '@invoicing/contracts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { contentDispositionOf, etagOf, ifNoneMatchHits } from './invoice-pdf.domain.ts';
import type { InvoicePdfRow } from './invoice-pdf.entity.ts';

/**
 * Answers with a stored PDF: its digest as the ETag (304 when the client holds it already), and
 * a download named after the invoice number. The bytes never change, but unless the route says
 * otherwise they are only revalidated, never kept by shared caches: the invoice belongs to one workspace.
 */
export const replyWithPdf = (request: FastifyRequest, reply: FastifyReply, pdf: InvoicePdfRow): FastifyReply | Buffer => {
  const etag = etagOf(pdf.sha256);
  reply.header('etag', etag).header('x-content-type-options', 'nosniff');
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'private, no-cache');
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  reply.type(PDF_CONTENT_TYPE).header('content-disposition', contentDispositionOf(pdf.number));
  return pdf.content;
};
