import { billingEventSchema, BILLING_SUBJECTS, parsePublicId, type EventEnvelope, type Invoice } from '@invoicing/contracts';
import { invalidRequest, notFound, workspaceIdOf, type Caller } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BillingReader } from '../../shared/billing.ts';
import { storeFinalizedExports } from '../einvoices/invoice-export.service.ts';
import type { InvoicePrinter } from '../rendering/invoice-printer.ts';
import type { InvoicePdfRow } from './invoice-pdf.entity.ts';
import { invoicePdfRepository, type InvoicePdfRepository } from './invoice-pdf.repository.ts';
import { createPdfCache, type PdfCache } from './pdf-cache.ts';

export interface InvoicePdfDeps {
  em: EntityManager;
  billing: BillingReader;
  printer: InvoicePrinter;
  /** Stored PDFs held in memory; default: none. */
  cache?: PdfCache;
  clock: Clock;
}

const invoiceUuidOf = (invoice: Invoice): string => {
  const uuid = parsePublicId('invoice', invoice.id);
  if (uuid === undefined) throw new Error(`billing sent an invoice id ${invoice.id} that is not an in_ id`);
  return uuid;
};

/** Prints the invoice and stores it, or returns what a concurrent print stored first. */
const printAndStore = async (pdfs: InvoicePdfRepository, printer: InvoicePrinter, workspaceId: string, invoice: Invoice, clock: Clock): Promise<InvoicePdfRow> => {
  const printed = await printer.print(invoice);
  const row: InvoicePdfRow = {
    invoiceId: invoiceUuidOf(invoice),
    workspaceId,
    number: invoice.number!,
    templateVersion: printed.templateVersion,
    sha256: printed.sha256,
    byteSize: printed.bytes.length,
    content: printed.bytes,
    renderedAt: clock.now(),
  };
  if (await pdfs.addIfAbsent(row)) return row;
  return (await pdfs.findWithContent(workspaceId, row.invoiceId))!;
};

/** Stored PDFs: served as stored, printed and stored on first need. */
export const invoicePdfService = ({ em, billing, printer, cache = createPdfCache(0), clock }: InvoicePdfDeps) => {
  const pdfs = invoicePdfRepository(em);

  /** The stored PDF of the workspace's invoice, from memory or PostgreSQL. */
  const storedPdf = async (workspaceId: string, invoiceId: string): Promise<InvoicePdfRow | undefined> => {
    const cached = cache.get(invoiceId);
    if (cached) return cached.workspaceId === workspaceId ? cached : undefined;
    const stored = await pdfs.findWithContent(workspaceId, invoiceId);
    if (stored) cache.put(stored);
    return stored ?? undefined;
  };

  const print = async (workspaceId: string, invoice: Invoice): Promise<InvoicePdfRow> => {
    const printed = await printAndStore(pdfs, printer, workspaceId, invoice, clock);
    cache.put(printed);
    return printed;
  };

  return {
    /** `GET /api/v1/invoices/:id/pdf`: the caller's finalized invoice. */
    forCaller: async (caller: Caller, id: string): Promise<InvoicePdfRow> => {
      const workspaceId = workspaceIdOf(caller);
      const invoiceId = parsePublicId('invoice', id);
      if (invoiceId === undefined) throw notFound('invoice', id);
      const stored = await storedPdf(workspaceId, invoiceId);
      if (stored) return stored;
      // Not stored yet (its finalization event is still on its way): billing says whether it may be printed.
      const invoice = await billing.invoice(caller, id);
      if (invoice === undefined) throw notFound('invoice', id);
      if (invoice.status === 'draft') throw invalidRequest(`Invoice ${id} is a draft: it has a PDF once finalized.`);
      return print(workspaceId, invoice);
    },

    /** The PDF of a finalized invoice found by other means (its public link). */
    forInvoice: async (workspaceId: string, invoice: Invoice): Promise<InvoicePdfRow> =>
      (await storedPdf(workspaceId, invoiceUuidOf(invoice))) ?? print(workspaceId, invoice),

    /** The stored PDF's digest and version, bytes not needed; printed now if there is none yet and printing is possible. */
    summaryOf: async (workspaceId: string, invoice: Invoice): Promise<InvoicePdfRow | undefined> => {
      const invoiceId = invoiceUuidOf(invoice);
      const known = cache.get(invoiceId) ?? (await pdfs.findSummary(workspaceId, invoiceId));
      if (known?.workspaceId === workspaceId) return known;
      if (printer.unavailableBecause !== undefined) return undefined;
      return print(workspaceId, invoice);
    },
  };
};

export type InvoicePdfService = ReturnType<typeof invoicePdfService>;

const FinalizedEvent = billingEventSchema(BILLING_SUBJECTS.invoiceFinalized);

export type FinalizedOutcome = 'stored' | 'stored-already' | 'no-chromium' | 'unreadable';

/**
 * On `billing.invoice.finalized`: prints the invoice from the event's snapshot and stores it,
 * once, then writes and stores every e-invoice export the invoice is ready for (the Factur-X from
 * that PDF). A redelivered event finds them stored and writes nothing. Without Chromium there is
 * no PDF to retry: the XML exports are stored, and the first download prints the rest once a
 * browser is there.
 */
export const storeFinalizedInvoice =
  ({ em, printer, clock }: Omit<InvoicePdfDeps, 'billing'>) =>
  async (envelope: EventEnvelope): Promise<FinalizedOutcome> => {
    const event = FinalizedEvent.safeParse(envelope);
    // Redelivering an event that breaks the contract would not mend it.
    if (!event.success) return 'unreadable';
    const invoice = event.data.data.object;
    const workspaceId = event.data.workspace_id;
    const fork = em.fork();
    const pdfs = invoicePdfRepository(fork);
    let pdf = await pdfs.findWithContent(workspaceId, invoiceUuidOf(invoice));
    const outcome: FinalizedOutcome = pdf ? 'stored-already' : printer.unavailableBecause !== undefined ? 'no-chromium' : 'stored';
    if (!pdf && outcome === 'stored') pdf = await printAndStore(pdfs, printer, workspaceId, invoice, clock);
    await storeFinalizedExports(fork, workspaceId, invoice, pdf?.content, clock);
    return outcome;
  };
