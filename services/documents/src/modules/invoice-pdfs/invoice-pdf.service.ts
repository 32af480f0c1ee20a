import type { Invoice } from '@invoicing/contracts';
import type { Caller } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingReader } from '../../shared/billing.ts';
import type { InvoicePrinter } from '../rendering/invoice-printer.ts';
import { documentForCaller, invoiceUuidOf, storedDocument } from '../stored-documents/stored-document.service.ts';
import { createStoredFileCache } from '../stored-documents/stored-file-cache.ts';
import type { InvoicePdfRow } from './invoice-pdf.entity.ts';
import { invoicePdfRepository } from './invoice-pdf.repository.ts';

/** Stored PDFs in memory. */
export const createPdfCache = (maxBytes: number) =>
  createStoredFileCache<InvoicePdfRow>(maxBytes, ({ invoiceId, workspaceId, number, templateVersion, sha256, byteSize, content, renderedAt }) => ({
    invoiceId,
    workspaceId,
    number,
    templateVersion,
    sha256,
    byteSize,
    content,
    renderedAt,
  }));
export type PdfCache = ReturnType<typeof createPdfCache>;

export interface InvoicePdfDocumentDeps {
  em: EntityManager;
  printer: InvoicePrinter;
  /** Stored PDFs held in memory; default: none. */
  cache?: PdfCache;
  clock: Clock;
}

/** The PDF of finalized invoices as a stored document: printed once, then served as stored. */
export const invoicePdfDocument = ({ em, printer, cache, clock }: InvoicePdfDocumentDeps) => {
  const pdfs = invoicePdfRepository(em);
  return storedDocument<InvoicePdfRow>({
    kind: 'pdf',
    find: pdfs.findWithContent,
    addIfAbsent: pdfs.addIfAbsent,
    render: async (workspaceId, invoice) => {
      const printed = await printer.print(invoice);
      return {
        invoiceId: invoiceUuidOf(invoice),
        workspaceId,
        number: invoice.number!,
        templateVersion: printed.templateVersion,
        sha256: printed.sha256,
        byteSize: printed.bytes.length,
        content: printed.bytes,
        renderedAt: clock.now(),
      };
    },
    cache,
  });
};

export interface InvoicePdfDeps extends InvoicePdfDocumentDeps {
  billing: BillingReader;
}

/** Stored PDFs: served as stored, printed and stored on first need. */
export const invoicePdfService = ({ em, billing, printer, cache, clock }: InvoicePdfDeps) => {
  const pdfs = invoicePdfRepository(em);
  const pdf = invoicePdfDocument({ em, printer, cache, clock });

  return {
    /** `GET /api/v1/invoices/:id/pdf`: the caller's finalized invoice. */
    forCaller: (caller: Caller, id: string): Promise<InvoicePdfRow> => documentForCaller(pdf, { billing, caller, id, draftLacks: 'a PDF' }),

    /** The PDF of a finalized invoice found by other means (its public link). */
    forInvoice: pdf.forInvoice,

    /** The stored PDF's digest and version, bytes not needed; printed now if there is none yet and printing is possible. */
    summaryOf: async (workspaceId: string, invoice: Invoice): Promise<InvoicePdfRow | undefined> => {
      const invoiceId = invoiceUuidOf(invoice);
      const known = pdf.cached(invoiceId) ?? (await pdfs.findSummary(workspaceId, invoiceId));
      if (known?.workspaceId === workspaceId) return known;
      if (printer.unavailableBecause !== undefined) return undefined;
      return pdf.store(workspaceId, invoice);
    },
  };
};

export type InvoicePdfService = ReturnType<typeof invoicePdfService>;
