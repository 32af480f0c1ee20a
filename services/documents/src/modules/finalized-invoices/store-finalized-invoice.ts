import { billingEventSchema, BILLING_SUBJECTS, type EventEnvelope } from '@invoicing/contracts';
import type { Clock } from '@invoicing/service-kit/clock';
import { withFieldsAddedSince } from '@invoicing/service-kit/earlier-event-data';
import type { EntityManager } from '@mikro-orm/postgresql';
import { storeFinalizedExports, type AttachmentContentOf } from '../einvoices/invoice-export.service.ts';
import { invoicePdfDocument } from '../invoice-pdfs/invoice-pdf.service.ts';
import type { InvoicePrinter } from '../rendering/invoice-printer.ts';
import { invoiceUuidOf } from '../stored-documents/stored-document.service.ts';

const FinalizedEvent = billingEventSchema(BILLING_SUBJECTS.invoiceFinalized);

export type FinalizedOutcome = 'stored' | 'stored-already' | 'no-chromium' | 'unreadable';

export interface FinalizedInvoiceDeps {
  em: EntityManager;
  printer: InvoicePrinter;
  clock: Clock;
  /** The bytes of the invoice's supporting documents, which its e-invoices embed. */
  attachmentContentOf: AttachmentContentOf;
}

/**
 * On `billing.invoice.finalized`: prints the invoice from the event's snapshot and stores it,
 * once, then writes and stores every e-invoice export the invoice is ready for (the Factur-X from
 * that PDF). A redelivered event finds them stored and writes nothing. Without Chromium there is
 * no PDF to retry: the XML exports are stored, and the first download prints the rest once a
 * browser is there.
 */
export const storeFinalizedInvoice =
  ({ em, printer, clock, attachmentContentOf }: FinalizedInvoiceDeps) =>
  async (envelope: EventEnvelope): Promise<FinalizedOutcome> => {
    const event = FinalizedEvent.safeParse({ ...envelope, data: withFieldsAddedSince(envelope.data, envelope.workspace_id) });
    // Redelivering an event that breaks the contract would not mend it.
    if (!event.success) return 'unreadable';
    const invoice = event.data.data.object;
    const workspaceId = event.data.workspace_id;
    const fork = em.fork();
    const pdfs = invoicePdfDocument({ em: fork, printer, clock });
    let pdf = await pdfs.stored(workspaceId, invoiceUuidOf(invoice));
    const outcome: FinalizedOutcome = pdf ? 'stored-already' : printer.unavailableBecause !== undefined ? 'no-chromium' : 'stored';
    if (!pdf && outcome === 'stored') pdf = await pdfs.store(workspaceId, invoice);
    await storeFinalizedExports(fork, workspaceId, invoice, pdf?.content, clock, attachmentContentOf);
    return outcome;
  };
