import { createHash } from 'node:crypto';
import type { Invoice } from '@invoicing/contracts';
import { unavailable } from '@invoicing/service-kit';
import { toInvoiceDocumentView } from './invoice-view.domain.ts';
import { normalizePdf } from './pdf-normalization.ts';
import type { PdfRenderer } from './pdf-renderer.ts';
import type { InvoiceTemplates } from './templates.ts';

export interface PrintedInvoice {
  bytes: Buffer;
  /** SHA-256 of the bytes, lowercase hex. */
  sha256: string;
  templateVersion: string;
}

/** Either a renderer, or why this process has none (no Chromium). */
export type PdfRendering = { renderer: PdfRenderer } | { unavailableBecause: string };

export interface InvoicePrinter {
  /** Why PDFs cannot be printed here, or undefined when they can. */
  unavailableBecause: string | undefined;
  print: (invoice: Invoice) => Promise<PrintedInvoice>;
}

/**
 * Prints a finalized invoice from its snapshot with one template version. The document's dates
 * come from the invoice (its finalization), so printing the same invoice again gives the same bytes.
 */
export const createInvoicePrinter = (rendering: PdfRendering, templates: InvoiceTemplates): InvoicePrinter => {
  const unavailableBecause = 'unavailableBecause' in rendering ? rendering.unavailableBecause : undefined;
  return {
    unavailableBecause,
    print: async (invoice) => {
      if (!('renderer' in rendering)) throw unavailable(`PDFs cannot be rendered on this server: ${unavailableBecause}. Set CHROMIUM_PATH to a Chromium or Chrome binary.`);
      const view = toInvoiceDocumentView(invoice);
      const printed = await rendering.renderer.render(templates.pdfJob(view));
      const bytes = normalizePdf(printed, new Date(invoice.finalized_at ?? invoice.issue_date));
      return { bytes, sha256: createHash('sha256').update(bytes).digest('hex'), templateVersion: templates.version };
    },
  };
};
