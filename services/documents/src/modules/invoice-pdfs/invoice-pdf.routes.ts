import { downloadInvoicePdf, PDF_CONTENT_TYPE } from '@invoicing/contracts';
import { callerOf, registerOperation } from '@invoicing/service-kit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { replyWithDocument, type StoredDocument } from '../stored-documents/document-reply.ts';
import type { PdfDownloadService } from './pdf-download.service.ts';

/** A stored PDF (plain or Factur-X) as a download: `Invoice-INV-2026-0042.pdf`. */
export const replyWithPdf = (request: FastifyRequest, reply: FastifyReply, pdf: StoredDocument): FastifyReply | Buffer =>
  replyWithDocument(request, reply, pdf, { contentType: PDF_CONTENT_TYPE, extension: 'pdf' });

export const registerInvoicePdfRoutes = (app: FastifyInstance, downloads: PdfDownloadService): void => {
  registerOperation(app, downloadInvoicePdf, async (request, reply) => replyWithPdf(request, reply, await downloads.forCaller(callerOf(request), request.params.id, request.query.format)));
};
