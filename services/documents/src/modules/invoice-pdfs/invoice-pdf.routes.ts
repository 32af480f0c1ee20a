import { downloadInvoicePdf } from '@invoicing/contracts';
import { callerOf, registerOperation } from '@invoicing/service-kit';
import type { FastifyInstance } from 'fastify';
import type { InvoicePdfService } from './invoice-pdf.service.ts';
import { replyWithPdf } from './pdf-reply.ts';

export const registerInvoicePdfRoutes = (app: FastifyInstance, pdfs: InvoicePdfService): void => {
  registerOperation(app, downloadInvoicePdf, async (request, reply) => replyWithPdf(request, reply, await pdfs.forCaller(callerOf(request), request.params.id)));
};
