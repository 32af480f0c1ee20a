import { createHash } from 'node:crypto';
import type { EinvoiceSyntax, Invoice, InvoiceAttachment } from '@invoicing/contracts';
import { invalidRequest, type Caller } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingReader } from '../../shared/billing.ts';
import { documentForCaller, invoiceUuidOf, storedDocument, type StoredDocument } from '../stored-documents/stored-document.service.ts';
import { createStoredFileCache } from '../stored-documents/stored-file-cache.ts';
import { toEInvoice, type EInvoiceProfile } from './einvoice.domain.ts';
import { einvoiceProblems } from './einvoice-readiness.domain.ts';
import { EXPORT_KINDS, type ExportKind, type InvoiceExportRow } from './invoice-export.entity.ts';
import { GENERATOR_VERSION, profileOfKind, xmlKindOf } from './invoice-export.domain.ts';
import { invoiceExportRepository } from './invoice-export.repository.ts';

/** The stored PDF's bytes of a finalized invoice (printed now if it has none yet): the page of a Factur-X. */
export type PdfBytesOf = (workspaceId: string, invoice: Invoice) => Promise<Buffer>;

/**
 * The bytes of one supporting document (BG-24) of a finalized invoice, as billing stores them:
 * the seam where documents fetches them from billing. The exports embed them (BT-125).
 */
export type AttachmentContentOf = (workspaceId: string, invoice: Invoice, attachment: InvoiceAttachment) => Promise<Buffer>;

/** Supporting documents' bytes as billing serves them (checked there against the size and SHA-256 the invoice lists). */
export const attachmentContentFrom =
  (billing: Pick<BillingReader, 'attachmentContent'>): AttachmentContentOf =>
  (workspaceId, invoice, attachment) =>
    billing.attachmentContent(workspaceId, invoice.id, attachment.id);

/**
 * Each supporting document's bytes, checked against the size and SHA-256 the invoice froze: an
 * export is stored for good, so it must never embed anything but the file the invoice lists.
 */
const loadAttachments = async (invoice: Invoice, contentOf: ((attachment: InvoiceAttachment) => Promise<Buffer>) | undefined): Promise<Map<string, Buffer>> => {
  const contents = new Map<string, Buffer>();
  if (invoice.attachments.length === 0) return contents;
  if (!contentOf) throw new Error(`Invoice ${invoice.id} has supporting documents and no attachment loader is configured`);
  for (const attachment of invoice.attachments) {
    const content = await contentOf(attachment);
    const sha256 = createHash('sha256').update(content).digest('hex');
    if (content.length !== attachment.size || sha256 !== attachment.sha256) {
      throw new Error(`Supporting document ${attachment.id} of invoice ${invoice.id} is not the file the invoice lists (${content.length} bytes, SHA-256 ${sha256})`);
    }
    contents.set(attachment.id, content);
  }
  return contents;
};

const PROFILE_NAMES: Record<EInvoiceProfile, string> = { en16931: 'EN 16931', xrechnung: 'XRechnung 3.0' };

/** Stored e-invoice exports in memory. */
export const createExportCache = (maxBytes: number) =>
  createStoredFileCache<InvoiceExportRow>(
    maxBytes,
    ({ invoiceId, kind, workspaceId, number, generatorVersion, sha256, byteSize, content, renderedAt }) => ({
      invoiceId,
      kind,
      workspaceId,
      number,
      generatorVersion,
      sha256,
      byteSize,
      content,
      renderedAt,
    }),
  );
export type ExportCache = ReturnType<typeof createExportCache>;

/** The missing fields of a profile as the 400 the API answers with. */
const refuseUnready = (invoice: Invoice, profile: EInvoiceProfile): void => {
  const problems = einvoiceProblems(invoice, profile);
  if (problems.length > 0) {
    throw invalidRequest(`Invoice ${invoice.number} lacks what ${PROFILE_NAMES[profile]} needs: ${problems.map((problem) => problem.path).join(', ')}.`, problems);
  }
};

/**
 * The writers, imported by the first export rather than at start: xmlbuilder2 and pdf-lib hold
 * about 7 MB of heap that a service with nothing to export does not need.
 */
const loadWriters = async () => {
  const [{ writeCiiInvoice }, { writeUblInvoice }, { toFacturXPdf }] = await Promise.all([
    import('./cii-invoice.ts'),
    import('./ubl-invoice.ts'),
    import('./facturx-pdf.ts'),
  ]);
  return { writeCiiInvoice, writeUblInvoice, toFacturXPdf };
};

/** Writes one export of a finalized invoice that is ready for its profile, its supporting documents embedded. */
export const renderExport = async (
  invoice: Invoice,
  kind: ExportKind,
  pdfBytes: () => Promise<Buffer>,
  attachmentContent?: (attachment: InvoiceAttachment) => Promise<Buffer>,
): Promise<Buffer> => {
  const einvoice = toEInvoice(invoice, await loadAttachments(invoice, attachmentContent));
  const { writeCiiInvoice, writeUblInvoice, toFacturXPdf } = await loadWriters();
  if (kind === 'facturx') {
    const xml = writeCiiInvoice(einvoice, 'en16931');
    return toFacturXPdf({ pdf: await pdfBytes(), xml, at: new Date(invoice.finalized_at ?? invoice.issue_date) });
  }
  const [syntax, profile] = kind.split('-') as [EinvoiceSyntax, EInvoiceProfile];
  return syntax === 'ubl' ? writeUblInvoice(einvoice, profile) : writeCiiInvoice(einvoice, profile);
};

export interface InvoiceExportDocumentsDeps {
  em: EntityManager;
  pdfBytesOf: PdfBytesOf;
  /** The supporting documents' bytes; without it, an invoice that lists any cannot be exported. */
  attachmentContentOf?: AttachmentContentOf;
  /** Stored exports held in memory; default: none. */
  cache?: ExportCache;
  clock: Clock;
}

/** Each kind of export of finalized invoices as a stored document: written once, then served as stored. */
export const invoiceExportDocuments = ({ em, pdfBytesOf, attachmentContentOf, cache, clock }: InvoiceExportDocumentsDeps): Record<ExportKind, StoredDocument<InvoiceExportRow>> => {
  const exports = invoiceExportRepository(em);
  const documentOf = (kind: ExportKind) =>
    storedDocument<InvoiceExportRow>({
      kind,
      find: (workspaceId, invoiceId) => exports.findWithContent(workspaceId, invoiceId, kind),
      addIfAbsent: exports.addIfAbsent,
      render: async (workspaceId, invoice) => {
        refuseUnready(invoice, profileOfKind(kind));
        const content = await renderExport(
          invoice,
          kind,
          () => pdfBytesOf(workspaceId, invoice),
          attachmentContentOf && ((attachment) => attachmentContentOf(workspaceId, invoice, attachment)),
        );
        return {
          invoiceId: invoiceUuidOf(invoice),
          kind,
          workspaceId,
          number: invoice.number!,
          generatorVersion: GENERATOR_VERSION,
          sha256: createHash('sha256').update(content).digest('hex'),
          byteSize: content.length,
          content,
          renderedAt: clock.now(),
        };
      },
      cache,
    });
  return Object.fromEntries(EXPORT_KINDS.map((kind) => [kind, documentOf(kind)])) as Record<ExportKind, StoredDocument<InvoiceExportRow>>;
};

export interface InvoiceExportDeps extends InvoiceExportDocumentsDeps {
  billing: BillingReader;
}

/** Stored e-invoice exports: served as stored, written and stored on first need. */
export const invoiceExportService = ({ em, billing, pdfBytesOf, attachmentContentOf, cache, clock }: InvoiceExportDeps) => {
  const documents = invoiceExportDocuments({ em, pdfBytesOf, attachmentContentOf, cache, clock });
  const forCaller = (caller: Caller, id: string, kind: ExportKind): Promise<InvoiceExportRow> => documentForCaller(documents[kind], { billing, caller, id, draftLacks: 'e-invoices' });

  return {
    /** `GET /api/v1/invoices/:id/einvoice`. */
    xmlForCaller: (caller: Caller, id: string, syntax: EinvoiceSyntax, profile: EInvoiceProfile) => forCaller(caller, id, xmlKindOf(syntax, profile)),
    /** `GET /api/v1/invoices/:id/pdf?format=facturx`. */
    facturxForCaller: (caller: Caller, id: string) => forCaller(caller, id, 'facturx'),
    /** An export of a finalized invoice found by other means (its public link). */
    forInvoice: (workspaceId: string, invoice: Invoice, kind: ExportKind): Promise<InvoiceExportRow> => documents[kind].forInvoice(workspaceId, invoice),
    /** Whether the invoice can have this export: stored already, or nothing missing for its profile. */
    isAvailable: async (workspaceId: string, invoice: Invoice, kind: ExportKind): Promise<boolean> =>
      einvoiceProblems(invoice, profileOfKind(kind)).length === 0 || (await documents[kind].stored(workspaceId, invoiceUuidOf(invoice))) !== undefined,
  };
};
export type InvoiceExportService = ReturnType<typeof invoiceExportService>;

/** The loader, asked once per supporting document however many exports embed it (up to five, each up to 10 MB). */
const fetchedOnce = (attachmentContentOf: AttachmentContentOf): AttachmentContentOf => {
  const fetched = new Map<string, Promise<Buffer>>();
  return (workspaceId, invoice, attachment) => {
    let content = fetched.get(attachment.id);
    if (!content) fetched.set(attachment.id, (content = attachmentContentOf(workspaceId, invoice, attachment)));
    return content;
  };
};

/**
 * On finalization: every export the invoice is ready for, written once and stored (a redelivered
 * event finds them stored). The Factur-X needs the printed PDF; without one (no Chromium) it is
 * written on its first download. Supporting documents come from billing through `attachmentContentOf`.
 */
export const storeFinalizedExports = async (
  em: EntityManager,
  workspaceId: string,
  invoice: Invoice,
  pdf: Buffer | undefined,
  clock: Clock,
  attachmentContentOf: AttachmentContentOf,
): Promise<ExportKind[]> => {
  const have = await invoiceExportRepository(em).storedKinds(workspaceId, invoiceUuidOf(invoice));
  const documents = invoiceExportDocuments({ em, pdfBytesOf: async () => pdf!, attachmentContentOf: fetchedOnce(attachmentContentOf), clock });
  const stored: ExportKind[] = [];
  for (const kind of EXPORT_KINDS) {
    if (have.has(kind) || (kind === 'facturx' && pdf === undefined)) continue;
    if (einvoiceProblems(invoice, profileOfKind(kind)).length > 0) continue;
    await documents[kind].store(workspaceId, invoice);
    stored.push(kind);
  }
  return stored;
};
