import { downloadInvoiceEinvoice, XML_CONTENT_TYPE } from '@invoicing/contracts';
import { callerOf, registerOperation } from '@invoicing/service-kit';
import type { FastifyInstance } from 'fastify';
import { replyWithDocument } from '../stored-documents/document-reply.ts';
import type { InvoiceExportRow } from './invoice-export.entity.ts';
import { extensionOfKind } from './invoice-export.domain.ts';
import type { InvoiceExportService } from './invoice-export.service.ts';

/** A stored XML export as a download: `Invoice-INV-2026-0042.ubl.xml`, `...xrechnung.cii.xml`. */
export const replyWithXml = (request: Parameters<typeof replyWithDocument>[0], reply: Parameters<typeof replyWithDocument>[1], row: InvoiceExportRow) =>
  replyWithDocument(request, reply, row, { contentType: XML_CONTENT_TYPE, extension: extensionOfKind(row.kind) });

export const registerInvoiceExportRoutes = (app: FastifyInstance, exports: InvoiceExportService): void => {
  registerOperation(app, downloadInvoiceEinvoice, async (request, reply) =>
    replyWithXml(request, reply, await exports.xmlForCaller(callerOf(request), request.params.id, request.query.syntax, request.query.profile)),
  );
};
