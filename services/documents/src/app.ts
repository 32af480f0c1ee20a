import { createServiceApp, loggerOptions, type Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { FastifyServerOptions } from 'fastify';
import { registerInvoiceExportRoutes } from './modules/einvoices/invoice-export.routes.ts';
import { attachmentContentFrom, createExportCache, invoiceExportService, type ExportCache } from './modules/einvoices/invoice-export.service.ts';
import { registerInvoicePdfRoutes } from './modules/invoice-pdfs/invoice-pdf.routes.ts';
import { invoicePdfService, type PdfCache } from './modules/invoice-pdfs/invoice-pdf.service.ts';
import { pdfDownloadService } from './modules/invoice-pdfs/pdf-download.service.ts';
import { registerPublicPageRoutes } from './modules/public-page/public-page.routes.ts';
import { publicPageService } from './modules/public-page/public-page.service.ts';
import type { InvoicePrinter } from './modules/rendering/invoice-printer.ts';
import type { InvoiceTemplates } from './modules/rendering/templates.ts';
import type { BillingReader } from './shared/billing.ts';

export interface DocumentsAppDeps {
  /** Opened on the documents schema and migrated; whoever opened it closes it. */
  orm: Orm;
  internalToken: string;
  billing: BillingReader;
  printer: InvoicePrinter;
  templates: InvoiceTemplates;
  /** Stored PDFs held in memory; default: none. */
  pdfCache?: PdfCache;
  /** Stored e-invoice exports held in memory; default: 32 MB. */
  exportCache?: ExportCache;
  /** Called after a commit that added outbox rows. */
  announce: () => void;
  clock: Clock;
  checkReadiness: () => Promise<void>;
  logger?: FastifyServerOptions['logger'];
}

/** Documents' HTTP app: invoice PDFs, e-invoice exports and the public invoice page. Registers everything, never listens. */
export const buildApp = ({
  orm,
  internalToken,
  billing,
  printer,
  templates,
  pdfCache,
  exportCache = createExportCache(32 * 1024 * 1024),
  announce,
  clock,
  checkReadiness,
  logger = loggerOptions('documents', 'silent'),
}: DocumentsAppDeps) => {
  const app = createServiceApp({ name: 'documents', logger, internalToken, orm, checkReadiness });
  const pdfs = invoicePdfService({ em: orm.em, billing, printer, clock, cache: pdfCache });
  const exports = invoiceExportService({
    em: orm.em,
    billing,
    pdfBytesOf: async (workspaceId, invoice) => (await pdfs.forInvoice(workspaceId, invoice)).content,
    attachmentContentOf: attachmentContentFrom(billing),
    cache: exportCache,
    clock,
  });
  registerInvoicePdfRoutes(app, pdfDownloadService({ pdfs, facturxForCaller: exports.facturxForCaller, billing }));
  registerInvoiceExportRoutes(app, exports);
  registerPublicPageRoutes(app, publicPageService({ em: orm.em, billing, pdfs, exports, templates, announce, log: app.log, clock }));
  return app;
};

export type DocumentsApp = ReturnType<typeof buildApp>;
