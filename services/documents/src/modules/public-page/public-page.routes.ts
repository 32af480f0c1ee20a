import { downloadPublicInvoiceEinvoice, downloadPublicInvoicePdf, HTML_CONTENT_TYPE, viewPublicInvoice } from '@invoicing/contracts';
import { registerOperation } from '@invoicing/service-kit';
import type { FastifyInstance } from 'fastify';
import { replyWithXml } from '../einvoices/invoice-export.routes.ts';
import { replyWithPdf } from '../invoice-pdfs/invoice-pdf.routes.ts';
import { PUBLIC_HEADERS, publicPageHeaders } from './public-page.domain.ts';
import type { PublicPageService } from './public-page.service.ts';

export const registerPublicPageRoutes = (app: FastifyInstance, pages: PublicPageService): void => {
  app.register(async (scope) => {
    // Set before the handler runs, so that a 404 carries them too.
    scope.addHook('onRequest', async (_request, reply) => {
      reply.headers(PUBLIC_HEADERS);
    });
    registerOperation(scope, viewPublicInvoice, async (request, reply) => {
      const { html, nonce } = await pages.page(request.params.token, String(request.id), { isView: request.method === 'GET' });
      reply.headers(publicPageHeaders(nonce)).type(HTML_CONTENT_TYPE);
      return html;
    });
    registerOperation(scope, downloadPublicInvoicePdf, async (request, reply) => replyWithPdf(request, reply, await pages.pdf(request.params.token, String(request.id), request.query.format)));
    registerOperation(scope, downloadPublicInvoiceEinvoice, async (request, reply) =>
      replyWithXml(request, reply, await pages.einvoice(request.params.token, String(request.id), request.query.syntax, request.query.profile)),
    );
  });
};
