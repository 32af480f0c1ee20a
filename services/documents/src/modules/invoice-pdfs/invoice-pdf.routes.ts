import { downloadInvoicePdf } from '@invoicing/contracts';
import { callerOf, registerOperation } from '@invoicing/service-kit';
import type { FastifyInstance } from 'fastify';
import type { PdfDownloadService } from './pdf-download.service.ts';
import { replyWithPdf } from './pdf-reply.ts';

export const registerInvoicePdfRoutes = (app: FastifyInstance, downloads: PdfDownloadService): void => {
  registerOperation(app, downloadInvoicePdf, async (request, reply) => replyWithPdf(request, reply, await downloads.forCaller(callerOf(request), request.params.id, request.query.format)));
};
