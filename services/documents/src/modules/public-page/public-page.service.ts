import { randomBytes } from 'node:crypto';
import { DOCUMENTS_SUBJECTS, type EinvoiceSyntax, type InvoiceByPublicToken, type PdfFormat } from '@invoicing/contracts';
import { AppError } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { BillingReader } from '../../shared/billing.ts';
import { addDocumentsEvent } from '../../shared/events.ts';
import type { EInvoiceProfile } from '../einvoices/einvoice.domain.ts';
import type { ExportKind, InvoiceExportRow } from '../einvoices/invoice-export.entity.ts';
import { extensionOfKind, xmlKindOf } from '../einvoices/invoice-export.domain.ts';
import type { InvoiceExportService } from '../einvoices/invoice-export.service.ts';
import type { InvoicePdfRow } from '../invoice-pdfs/invoice-pdf.entity.ts';
import type { InvoicePdfService } from '../invoice-pdfs/invoice-pdf.service.ts';
import type { StoredDocument } from '../stored-documents/document-reply.ts';
import { documentFileName } from '../stored-documents/stored-document.domain.ts';
import type { InvoiceTemplates } from '../rendering/templates.ts';
import { DOWNLOAD_MESSAGES, isWellFormedToken, publicPageContentOf, type PublicPageContent } from './public-page.domain.ts';

export interface PublicPageDeps {
  em: EntityManager;
  billing: BillingReader;
  pdfs: InvoicePdfService;
  exports: InvoiceExportService;
  templates: InvoiceTemplates;
  /** Called after a commit that added outbox rows. */
  announce: () => void;
  log: FastifyBaseLogger;
  clock: Clock;
}

// One answer for every link that leads nowhere (malformed, unknown, rotated away, a draft), so
// that probing tells nothing apart.
const noSuchLink = () => new AppError('not_found', 'No invoice behind this link. It may have been replaced by a newer one.');

/** The public invoice page and its PDF, reached with the invoice's public token alone. */
export const publicPageService = ({ em, billing, pdfs, exports, templates, announce, log, clock }: PublicPageDeps) => {
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

  /** The downloads besides the PDF that this invoice qualifies for, most useful first. */
  const otherDownloadsOf = async ({ workspace_id, invoice }: InvoiceByPublicToken, token: string, label: PublicPageContent['downloadLabel']) => {
    const base = `/i/${encodeURIComponent(token)}`;
    const offers: { kind: keyof typeof DOWNLOAD_MESSAGES & ExportKind; url: string }[] = [
      { kind: 'facturx', url: `${base}/pdf?format=facturx` },
      { kind: 'ubl-en16931', url: `${base}/einvoice?syntax=ubl&profile=en16931` },
      { kind: 'cii-en16931', url: `${base}/einvoice?syntax=cii&profile=en16931` },
      { kind: 'ubl-xrechnung', url: `${base}/einvoice?syntax=ubl&profile=xrechnung` },
      { kind: 'cii-xrechnung', url: `${base}/einvoice?syntax=cii&profile=xrechnung` },
    ];
    const available = await Promise.all(offers.map((offer) => exports.isAvailable(workspace_id, invoice, offer.kind)));
    return offers
      .filter((_, index) => available[index])
      .map(({ kind, url }) => ({ label: label(kind), url, fileName: documentFileName(invoice.number!, extensionOfKind(kind)) }));
  };

  return {
    /** The HTML page; each view is announced as `documents.invoice.viewed` (a HEAD request is not a view). */
    page: async (token: string, requestId: string, { isView }: { isView: boolean }): Promise<{ html: string; nonce: string }> => {
      const found = await find(token, requestId);
      const pdf = await pdfSummaryOf(found);
      const nonce = randomBytes(16).toString('base64url');
      const content = publicPageContentOf(found.invoice, found.workspace_id);
      const html = templates.publicPage({
        title: content.title,
        heading: content.heading,
        testMode: content.testMode,
        view: content.view,
        status: content.status,
        pdfUrl: `/i/${encodeURIComponent(token)}/pdf`,
        fileName: documentFileName(found.invoice.number!, 'pdf'),
        otherDownloads: await otherDownloadsOf(found, token, content.downloadLabel),
        pdfSha256: pdf?.sha256 ?? null,
        nonce,
      });
      if (isView) {
        await addDocumentsEvent(em, DOCUMENTS_SUBJECTS.invoiceViewed, { object: found.invoice }, { workspaceId: found.workspace_id, requestId, keyId: null }, clock.now());
        announce();
      }
      return { html, nonce };
    },

    /** The PDF behind the page: the same stored bytes as the API's download; the plain one unless Factur-X is asked for. */
    pdf: async (token: string, requestId: string, format: PdfFormat | undefined): Promise<StoredDocument> => {
      const found = await find(token, requestId);
      if (format === 'facturx') return exports.forInvoice(found.workspace_id, found.invoice, 'facturx');
      return pdfs.forInvoice(found.workspace_id, found.invoice);
    },
    /** The e-invoice behind the page: the same stored bytes as the API's export. */
    einvoice: async (token: string, requestId: string, syntax: EinvoiceSyntax, profile: EInvoiceProfile): Promise<InvoiceExportRow> => {
      const found = await find(token, requestId);
      return exports.forInvoice(found.workspace_id, found.invoice, xmlKindOf(syntax, profile));
    },
  };
};

export type PublicPageService = ReturnType<typeof publicPageService>;
