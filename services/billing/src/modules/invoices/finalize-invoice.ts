import { randomBytes } from 'node:crypto';
import { BILLING_SUBJECTS, type Customer, type CustomerSnapshot } from '@invoicing/contracts';
import { invalidRequest, invalidState, notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { addBillingEvent } from '../../shared/events.ts';
import { businessSnapshotOf } from '../account/account.domain.ts';
import { chainHashOf, snapshotHashOf } from '../numbering/invoice-integrity.domain.ts';
import { formatNumber, periodOf } from '../numbering/numbering.domain.ts';
import { numberSeriesRepository } from '../numbering/number-series.repository.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { timelineRepository } from '../timeline/timeline.repository.ts';
import { finalizeOutcome, invoiceView } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import { requireCustomer } from './invoice-items.ts';
import { invoiceRepository } from './invoice.repository.ts';

/** 192 random bits, URL-safe: the public link cannot be guessed. */
const newPublicUrlToken = (): string => randomBytes(24).toString('base64url');

const customerSnapshotOf = (customer: Customer): CustomerSnapshot => ({
  name: customer.name,
  email: customer.email,
  address: customer.address,
  tax_id: customer.tax_id,
});

const isNumberTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'invoices_number_unique';
};

/**
 * Finalize: in one transaction, lock the invoice, freeze the snapshots, take the next number of
 * the series (as late as possible, so the counter's row lock is held briefly), hash the frozen
 * invoice onto the series' chain, and add the event; commit, then announce the event. The
 * customer is read from the catalog before the transaction, which therefore holds no lock while
 * waiting on the network. The loser of a race, and any finalize of an open invoice, gets the
 * invoice as it is: same number, nothing changed, no event.
 */
export const finalizeInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);
  const series = numberSeriesRepository();
  const timeline = timelineRepository(deps.em);

  const attempt = async (actor: Actor, publicId: string) => {
    const id = invoiceIdOf(publicId);
    const moment = await workspaceMoment(deps, actor);
    const current = await invoices.findInWorkspace(actor.workspaceId, id);
    if (!current) throw notFound('invoice', publicId);
    const customer = finalizeOutcome(current) === 'finalize' ? await requireCustomer(deps.catalog, actor, current.customerId) : undefined;

    const outcome = await deps.em.transactional(async (tx) => {
      const row = await invoices.findForUpdate(tx, actor.workspaceId, id);
      if (!row) throw notFound('invoice', publicId);
      const lines = await invoices.linesOf(tx, id);
      if (finalizeOutcome(row) === 'unchanged') return { view: invoiceView(row, lines, moment.view), finalized: false };
      // The customer was read for the customer the invoice named before the lock; a PATCH may have changed it since.
      if (!customer || row.customerId !== current.customerId) throw new StaleRead();
      if (lines.length === 0) {
        throw invalidRequest('An invoice needs at least one line to be finalized.', [{ path: 'items', message: 'no lines: PATCH items first' }]);
      }
      const format = moment.account.numberFormat;
      const period = periodOf(format, moment.local);
      tx.assign(row, {
        status: 'open',
        customerName: customer.name,
        customerSnapshot: customerSnapshotOf(customer),
        businessSnapshot: businessSnapshotOf(moment.account),
        finalizedAt: moment.now,
        publicUrlToken: newPublicUrlToken(),
        amountDue: row.total,
        updatedAt: moment.now,
      });

      const { sequence, previousChain } = await series.takeNextNumber(tx, actor.workspaceId, format, period);
      tx.assign(row, { number: formatNumber(format, period, sequence), numberFormat: format, numberPeriod: period, numberSequence: sequence });
      const snapshotSha256 = snapshotHashOf(invoiceView(row, lines, moment.view));
      tx.assign(row, { snapshotSha256, chainSha256: chainHashOf(previousChain, snapshotSha256) });
      await series.recordChain(tx, actor.workspaceId, format, period, row.chainSha256!);
      const view = invoiceView(row, lines, moment.view);
      timeline.add(tx, timelineEntry(row, { type: 'finalized', number: view.number! }, actor, moment.now));
      await addBillingEvent(tx, BILLING_SUBJECTS.invoiceFinalized, { object: view }, actor, moment.now);
      return { view, finalized: true };
    });
    if (outcome.finalized) deps.announce();
    return { data: outcome.view };
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
