import { randomBytes } from 'node:crypto';
import { BILLING_SUBJECTS, type Customer, type CustomerSnapshot } from '@invoicing/contracts';
import { invalidRequest, invalidState, notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { businessSnapshotOf, electronicAddressOf } from '../account/account.domain.ts';
import { finalizeWithNextNumber } from '../numbering/finalize-statement.ts';
import { canonicalJson, CURRENT_DOCUMENT_VERSION, finalizedDocument } from '../numbering/invoice-integrity.domain.ts';
import { numberPartsOf, periodOf } from '../numbering/numbering.domain.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { draftOf, finalizeOutcome, invoiceView, isPricedByCurrentRule, totalsColumns } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';
import { computeInvoice } from './invoice-totals.domain.ts';
import { requireCustomer } from './invoice-items.ts';
import { invoiceWrites } from './invoice-writes.ts';
import { newPublicUrlToken } from './public-link.ts';

/** A stand-in the finalize statement replaces; random, so no text an invoice holds can look like it. */
const placeholder = (kind: string): string => `~~${kind}-${randomBytes(16).toString('hex')}~~`;

/** What finalization freezes of the buyer, e-invoice data included; later edits to the customer do not reach it. */
const customerSnapshotOf = (customer: Customer): CustomerSnapshot => ({
  name: customer.name,
  email: customer.email,
  address: customer.address,
  tax_id: customer.tax_id,
  ...electronicAddressOf({ electronicAddress: customer.electronic_address, electronicAddressScheme: customer.electronic_address_scheme, email: customer.email }),
  buyer_reference: customer.buyer_reference,
});

const isNumberTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'invoices_number_unique';
};

const FROZEN_PROPERTIES = [
  'status',
  'customerName',
  'customerSnapshot',
  'businessSnapshot',
  'finalizedAt',
  'publicUrlToken',
  'amountDue',
  'buyerReference',
  'deliveryDate',
  'snapshotVersion',
  'updatedAt',
] as const satisfies readonly (keyof InvoiceRow)[];

/**
 * Finalize. The invoice, its lines and the settings are read, and the customer fetched from the
 * catalog, before anything is locked, so no lock waits on the network. Then one statement (see
 * finalize-statement.ts) locks the draft, takes the next number of the series, hashes the frozen
 * invoice onto the series' chain, and writes invoice, timeline entry and event; then the event is
 * announced. The loser of a race, and any finalize of an open invoice, gets the invoice as it is:
 * same number, nothing changed, no event. A PATCH between the read and the statement sends the
 * finalize round again with fresh reads.
 */
export const finalizeInvoice = (deps: InvoiceDeps) => {
  const writes = invoiceWrites();
  const invoices = invoiceRepository(deps.em);

  /**
   * A draft priced before tax was computed per VAT category and rate is priced again (its lines'
   * tax and its totals) before it is frozen, so every invoice finalized from now on follows the
   * rule. `updated_at` moves, so a finalize that read the old figures starts again.
   */
  const repriceUnderCurrentRule = async (actor: Actor, invoice: InvoiceRow, now: Date): Promise<void> => {
    await deps.em.transactional(async (tx) => {
      const row = await invoices.findForUpdate(tx, actor.workspaceId, invoice.id);
      if (!row || row.status !== 'draft' || row.updatedAt.getTime() !== invoice.updatedAt.getTime()) return;
      const lines: InvoiceLineRow[] = await invoices.linesOf(tx, invoice.id);
      const { lines: amounts, totals } = computeInvoice(lines.map(draftOf));
      lines.forEach((line, index) => {
        line.tax = amounts[index]!.tax;
      });
      tx.assign(row, { ...totalsColumns(totals), updatedAt: new Date(Math.max(now.getTime(), invoice.updatedAt.getTime() + 1)) });
    });
  };

  const attempt = async (actor: Actor, publicId: string) => {
    const id = invoiceIdOf(publicId);
    const loaded = await writes.load(deps.em, actor.workspaceId, id);
    if (!loaded) throw notFound('invoice', publicId);
    const moment = await workspaceMoment(deps, actor, loaded.account);
    const { invoice, lines } = loaded;
    if (finalizeOutcome(invoice) === 'unchanged') return { data: invoiceView(invoice, lines, moment.view) };
    if (lines.length === 0) {
      throw invalidRequest('An invoice needs at least one line to be finalized.', [{ path: 'items', message: 'no lines: PATCH items first' }]);
    }
    if (!isPricedByCurrentRule(invoice, lines)) {
      await repriceUnderCurrentRule(actor, invoice, moment.now);
      throw new StaleRead();
    }
    const customer = await requireCustomer(deps.catalog, actor, invoice.customerId);

    const format = moment.account.numberFormat;
    const period = periodOf(format, moment.local);
    const frozen: InvoiceRow = {
      ...invoice,
      status: 'open',
      customerName: customer.name,
      customerSnapshot: customerSnapshotOf(customer),
      businessSnapshot: businessSnapshotOf(moment.account),
      // Empty on the draft: the customer's default reference, and delivery on the day of issue (decisions.md).
      buyerReference: invoice.buyerReference ?? customer.buyer_reference ?? null,
      deliveryDate: invoice.deliveryDate ?? invoice.issueDate,
      snapshotVersion: CURRENT_DOCUMENT_VERSION,
      finalizedAt: moment.now,
      publicUrlToken: newPublicUrlToken(),
      amountDue: invoice.total,
      updatedAt: moment.now,
    };
    const placeholders = { number: placeholder('number'), snapshot: placeholder('snapshot'), chain: placeholder('chain') };
    const pending = invoiceView(
      { ...frozen, number: placeholders.number, snapshotSha256: placeholders.snapshot, chainSha256: placeholders.chain },
      lines,
      moment.view,
    );
    const taken = await finalizeWithNextNumber(deps.em, {
      invoice: frozen,
      readVersion: invoice.updatedAt,
      properties: FROZEN_PROPERTIES,
      format,
      period,
      numberParts: numberPartsOf(format, period),
      document: canonicalJson(finalizedDocument(pending, CURRENT_DOCUMENT_VERSION)),
      placeholders,
      timeline: timelineEntry(frozen, { type: 'finalized', number: placeholders.number }, actor, moment.now),
      event: billingEvent(BILLING_SUBJECTS.invoiceFinalized, { object: pending }, actor, moment.now),
    });

    if (!taken) {
      // Not the draft that was read: another finalize won, or a PATCH came in between.
      const current = await writes.load(deps.em, actor.workspaceId, id);
      if (!current) throw notFound('invoice', publicId);
      if (finalizeOutcome(current.invoice) === 'finalize') throw new StaleRead();
      return { data: invoiceView(current.invoice, current.lines, moment.view) };
    }
    deps.announce();
    const finalized: InvoiceRow = {
      ...frozen,
      number: taken.number,
      numberFormat: format,
      numberPeriod: period,
      numberSequence: taken.sequence,
      snapshotSha256: taken.snapshotSha256,
      chainSha256: taken.chainSha256,
    };
    return { data: invoiceView(finalized, lines, moment.view) };
  };

  return (actor: Actor, publicId: string) =>
    retryingStaleReads(() => attempt(actor, publicId)).catch((error: unknown) => {
      if (!isNumberTaken(error)) throw error;
      throw invalidState(
        'The number format would issue a number that an earlier format already issued in this workspace; nothing was finalized. Choose a number_format that cannot repeat an earlier one.',
      );
    });
};

export type FinalizeInvoice = ReturnType<typeof finalizeInvoice>;
