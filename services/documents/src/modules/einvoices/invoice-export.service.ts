import { createHash } from 'node:crypto';
import { parsePublicId, type EinvoiceSyntax, type Invoice } from '@invoicing/contracts';
import { invalidRequest, notFound, workspaceIdOf, type Caller } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingReader } from '../../shared/billing.ts';
import { createStoredFileCache } from '../invoice-pdfs/pdf-cache.ts';
import { toEInvoice, type EInvoiceProfile } from './einvoice.domain.ts';
import { einvoiceProblems } from './einvoice-readiness.domain.ts';
import { EXPORT_KINDS, type ExportKind, type InvoiceExportRow } from './invoice-export.entity.ts';
import { GENERATOR_VERSION, profileOfKind, xmlKindOf } from './invoice-export.domain.ts';
import { invoiceExportRepository, type InvoiceExportRepository } from './invoice-export.repository.ts';

/** The stored PDF's bytes of a finalized invoice (printed now if it has none yet): the page of a Factur-X. */
export type PdfBytesOf = (workspaceId: string, invoice: Invoice) => Promise<Buffer>;

const PROFILE_NAMES: Record<EInvoiceProfile, string> = { en16931: 'EN 16931', xrechnung: 'XRechnung 3.0' };

export const createExportCache = (maxBytes: number) =>
  createStoredFileCache<InvoiceExportRow>(
    maxBytes,
    (row) => `${row.invoiceId}/${row.kind}`,
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

/** Writes one export of a finalized invoice that is ready for its profile. */
export const renderExport = async (invoice: Invoice, kind: ExportKind, pdfBytes: () => Promise<Buffer>): Promise<Buffer> => {
  const einvoice = toEInvoice(invoice);
  const { writeCiiInvoice, writeUblInvoice, toFacturXPdf } = await loadWriters();
  if (kind === 'facturx') {
    const xml = writeCiiInvoice(einvoice, 'en16931');
    return toFacturXPdf({ pdf: await pdfBytes(), xml, at: new Date(invoice.finalized_at ?? invoice.issue_date) });
  }
  const [syntax, profile] = kind.split('-') as [EinvoiceSyntax, EInvoiceProfile];
  return syntax === 'ubl' ? writeUblInvoice(einvoice, profile) : writeCiiInvoice(einvoice, profile);
};

const invoiceUuidOf = (invoice: Invoice): string => {
  const uuid = parsePublicId('invoice', invoice.id);
  if (uuid === undefined) throw new Error(`billing sent an invoice id ${invoice.id} that is not an in_ id`);
  return uuid;
};

/** Writes the export and stores it, or returns what a concurrent writer stored first. */
const renderAndStore = async (
  exports: InvoiceExportRepository,
  workspaceId: string,
  invoice: Invoice,
  kind: ExportKind,
  pdfBytes: () => Promise<Buffer>,
  clock: Clock,
): Promise<InvoiceExportRow> => {
  const content = await renderExport(invoice, kind, pdfBytes);
  const row: InvoiceExportRow = {
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
  if (await exports.addIfAbsent(row)) return row;
  return (await exports.findWithContent(workspaceId, row.invoiceId, kind))!;
};

export interface InvoiceExportDeps {
  em: EntityManager;
  billing: BillingReader;
  pdfBytesOf: PdfBytesOf;
  cache?: ExportCache;
  clock: Clock;
}

/** Stored e-invoice exports: served as stored, written and stored on first need. */
export const invoiceExportService = ({ em, billing, pdfBytesOf, cache = createExportCache(0), clock }: InvoiceExportDeps) => {
  const exports = invoiceExportRepository(em);

  const stored = async (workspaceId: string, invoiceId: string, kind: ExportKind): Promise<InvoiceExportRow | undefined> => {
    const cached = cache.get(`${invoiceId}/${kind}`);
    if (cached) return cached.workspaceId === workspaceId ? cached : undefined;
    const row = await exports.findWithContent(workspaceId, invoiceId, kind);
    if (row) cache.put(row);
    return row ?? undefined;
  };

  const write = async (workspaceId: string, invoice: Invoice, kind: ExportKind): Promise<InvoiceExportRow> => {
    refuseUnready(invoice, profileOfKind(kind));
    const row = await renderAndStore(exports, workspaceId, invoice, kind, () => pdfBytesOf(workspaceId, invoice), clock);
    cache.put(row);
    return row;
  };

  const forCaller = async (caller: Caller, id: string, kind: ExportKind): Promise<InvoiceExportRow> => {
    const workspaceId = workspaceIdOf(caller);
    const invoiceId = parsePublicId('invoice', id);
    if (invoiceId === undefined) throw notFound('invoice', id);
    const found = await stored(workspaceId, invoiceId, kind);
    if (found) return found;
    // Not stored yet (or not ready at finalization): billing says whether it may be written.
    const invoice = await billing.invoice(caller, id);
    if (invoice === undefined) throw notFound('invoice', id);
    if (invoice.status === 'draft') throw invalidRequest(`Invoice ${id} is a draft: it has e-invoices once finalized.`);
    return write(workspaceId, invoice, kind);
  };

  const forInvoice = async (workspaceId: string, invoice: Invoice, kind: ExportKind): Promise<InvoiceExportRow> =>
    (await stored(workspaceId, invoiceUuidOf(invoice), kind)) ?? write(workspaceId, invoice, kind);

  return {
    /** `GET /api/v1/invoices/:id/einvoice`. */
    xmlForCaller: (caller: Caller, id: string, syntax: EinvoiceSyntax, profile: EInvoiceProfile) => forCaller(caller, id, xmlKindOf(syntax, profile)),
    /** `GET /api/v1/invoices/:id/pdf?format=facturx`. */
    facturxForCaller: (caller: Caller, id: string) => forCaller(caller, id, 'facturx'),
    /** An export of a finalized invoice found by other means (its public link). */
    forInvoice,
    /** Whether the invoice can have this export: stored already, or nothing missing for its profile. */
    isAvailable: async (workspaceId: string, invoice: Invoice, kind: ExportKind): Promise<boolean> =>
      einvoiceProblems(invoice, profileOfKind(kind)).length === 0 || (await stored(workspaceId, invoiceUuidOf(invoice), kind)) !== undefined,
  };
};
export type InvoiceExportService = ReturnType<typeof invoiceExportService>;

/**
 * On finalization: every export the invoice is ready for, written once and stored (a redelivered
 * event finds them stored). The Factur-X needs the printed PDF; without one (no Chromium) it is
 * written on its first download.
 */
export const storeFinalizedExports = async (em: EntityManager, workspaceId: string, invoice: Invoice, pdf: Buffer | undefined, clock: Clock): Promise<ExportKind[]> => {
  const exports = invoiceExportRepository(em);
  const have = await exports.storedKinds(workspaceId, invoiceUuidOf(invoice));
  const stored: ExportKind[] = [];
  for (const kind of EXPORT_KINDS) {
    if (have.has(kind) || (kind === 'facturx' && pdf === undefined)) continue;
    if (einvoiceProblems(invoice, profileOfKind(kind)).length > 0) continue;
    await renderAndStore(exports, workspaceId, invoice, kind, async () => pdf!, clock);
    stored.push(kind);
  }
  return stored;
};
