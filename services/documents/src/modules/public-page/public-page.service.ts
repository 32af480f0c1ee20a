import { randomBytes } from 'node:crypto';
import { DOCUMENTS_SUBJECTS, type InvoiceByPublicToken } from '@invoicing/contracts';
import { AppError } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { BillingReader } from '../../shared/billing.ts';
import { addDocumentsEvent } from '../../shared/events.ts';
import type { InvoicePdfRow } from '../invoice-pdfs/invoice-pdf.entity.ts';
import { pdfFileName } from '../invoice-pdfs/invoice-pdf.domain.ts';
import type { InvoicePdfService } from '../invoice-pdfs/invoice-pdf.service.ts';
import { toInvoiceDocumentView } from '../rendering/invoice-view.domain.ts';
import type { InvoiceTemplates } from '../rendering/templates.ts';
import { isWellFormedToken, statusOf } from './public-page.domain.ts';

export interface PublicPageDeps {
  em: EntityManager;
  billing: BillingReader;
  pdfs: InvoicePdfService;
  templates: InvoiceTemplates;
  /** Called after a commit that added outbox rows. */
  announce: () => void;
  log: FastifyBaseLogger;
  now?: () => Date;
}

// One answer for every link that leads nowhere (malformed, unknown, rotated away, a draft), so
// that probing tells nothing apart.
const noSuchLink = () => new AppError('not_found', 'No invoice behind this link. It may have been replaced by a newer one.');

/** The public invoice page and its PDF, reached with the invoice's public token alone. */
export const publicPageService = ({ em, billing, pdfs, templates, announce, log, now = () => new Date() }: PublicPageDeps) => {
  const find = async (token: string, requestId: string): Promise<InvoiceByPublicToken> => {
    if (!isWellFormedToken(token)) throw noSuchLink();
    const found = await billing.invoiceByPublicToken(token, requestId);
    if (found === undefined || found.invoice.status === 'draft') throw noSuchLink();
    return found;
  };

  /** The page shows the PDF's digest; a failure to print leaves it out rather than failing the page. */
  const pdfSummaryOf = async ({ workspace_id, invoice }: InvoiceByPublicToken): Promise<InvoicePdfRow | undefined> => {
    try {
      return await pdfs.summaryOf(workspace_id, invoice);
    } catch (error) {
      log.warn({ err: error, invoice: invoice.id }, 'public page shown without the PDF digest: printing failed');
      return undefined;
    }
  };

  return {
    /** The HTML page; each view is announced as `documents.invoice.viewed` (a HEAD request is not a view). */
    page: async (token: string, requestId: string, { isView }: { isView: boolean }): Promise<{ html: string; nonce: string }> => {
      const found = await find(token, requestId);
      const pdf = await pdfSummaryOf(found);
      const nonce = randomBytes(16).toString('base64url');
      const html = templates.publicPage({
        view: toInvoiceDocumentView(found.invoice),
        status: statusOf(found.invoice),
        pdfUrl: `/i/${encodeURIComponent(token)}/pdf`,
        fileName: pdfFileName(found.invoice.number!),
        pdfSha256: pdf?.sha256 ?? null,
        nonce,
      });
      if (isView) {
        await addDocumentsEvent(em, DOCUMENTS_SUBJECTS.invoiceViewed, { object: found.invoice }, { workspaceId: found.workspace_id, requestId, keyId: null }, now());
        announce();
      }
      return { html, nonce };
    },

    /** The PDF behind the page: the same stored bytes as the API's download. */
    pdf: async (token: string, requestId: string): Promise<InvoicePdfRow> => {
      const found = await find(token, requestId);
      return pdfs.forInvoice(found.workspace_id, found.invoice);
    },
  };
};

export type PublicPageService = ReturnType<typeof publicPageService>;
