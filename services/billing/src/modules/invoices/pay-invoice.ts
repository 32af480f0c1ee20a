import { BILLING_SUBJECTS, type PayInvoiceBody } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { invoiceSummaryView, invoiceView, transition } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

/**
 * Pay: one statement that writes only while the invoice is still open. Of two concurrent pays (or
 * a pay and a void) exactly one finds it open; the others write nothing, read the invoice again
 * and get the 409 its new status calls for. The event carries the whole invoice, lines included,
 * although the response omits them.
 */
export const payInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);

  return (actor: Actor, publicId: string, body: PayInvoiceBody) =>
    retryingStaleReads(async () => {
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
      if (!loaded) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, loaded.account);
      const columns = transition(loaded.invoice, { to: 'paid', paidOn: body.paid_on, paymentReference: body.payment_reference }, { now: moment.now, today: moment.local.date });
      const paid: InvoiceRow = { ...loaded.invoice, ...columns };
      const written = await invoices.changeWhileStatus({
        invoice: paid,
        properties: Object.keys(columns) as (keyof InvoiceRow)[],
        whileStatus: 'open',
        entry: timelineEntry(paid, { type: 'paid', paid_on: body.paid_on ?? moment.local.date, payment_reference: body.payment_reference ?? null }, actor, moment.now),
        event: billingEvent(BILLING_SUBJECTS.invoicePaid, { object: invoiceView(paid, loaded.lines, moment.view) }, actor, moment.now),
      });
      // Settled by someone else first: read it again, so the transition answers for its new status.
      if (!written) throw new StaleRead();
      deps.announce();
      return { data: invoiceSummaryView(paid, moment.view) };
    });
};

export type PayInvoice = ReturnType<typeof payInvoice>;
