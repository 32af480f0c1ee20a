import type { PdfFormat } from '@invoicing/contracts';
import { AppError, type Caller } from '@invoicing/service-kit';
import type { BillingReader } from '../../shared/billing.ts';
import type { StoredDocument } from '../stored-documents/document-reply.ts';
import type { InvoicePdfService } from './invoice-pdf.service.ts';

/** The Factur-X PDF of the caller's invoice (the e-invoice exports make it); a 400 naming what it lacks when it cannot be one. */
export type FacturxForCaller = (caller: Caller, id: string) => Promise<StoredDocument>;

/** A 400 that lists missing fields: the invoice lacks what the Factur-X profile needs. */
const isMissingData = (error: unknown): boolean => error instanceof AppError && error.code === 'invalid_request' && (error.errors?.length ?? 0) > 0;

/**
 * `GET /api/v1/invoices/:id/pdf`: the plain PDF or the Factur-X PDF. A format in the request is
 * obeyed (a Factur-X the invoice cannot be is a 400 naming what it lacks); without one the
 * account's `pdf_format` decides, and an invoice that cannot be a valid Factur-X gets its plain
 * PDF rather than no PDF at all.
 */
export const pdfDownloadService = ({ pdfs, facturxForCaller, billing }: { pdfs: InvoicePdfService; facturxForCaller: FacturxForCaller; billing: BillingReader }) => ({
  forCaller: async (caller: Caller, id: string, format: PdfFormat | undefined): Promise<StoredDocument> => {
    if (format === 'facturx') return facturxForCaller(caller, id);
    if (format === 'standard') return pdfs.forCaller(caller, id);
    if ((await billing.pdfFormat(caller)) === 'standard') return pdfs.forCaller(caller, id);
    try {
      return await facturxForCaller(caller, id);
    } catch (error) {
      if (isMissingData(error)) return pdfs.forCaller(caller, id);
      throw error;
    }
  },
});
export type PdfDownloadService = ReturnType<typeof pdfDownloadService>;
