import { BILLING_SUBJECTS, type VoidInvoiceBody } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { invoiceSummaryView, invoiceView, transition } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

/**
 * Void: one statement that writes only while the invoice is still open, so a void racing a pay
 * (or another void) either wins or reads the invoice again and gets the 409 its new status calls
 * for. The number stays taken. The event carries the whole invoice, lines included.
 */
export const voidInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);

  return (actor: Actor, publicId: string, body: VoidInvoiceBody) =>
    retryingStaleReads(async () => {
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
      if (!loaded) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, loaded.account);
      const columns = transition(loaded.invoice, { to: 'void', reason: body.reason }, { now: moment.now, today: moment.local.date });
      const voided: InvoiceRow = { ...loaded.invoice, ...columns };
      const written = await invoices.changeWhileStatus({
        invoice: voided,
        properties: Object.keys(columns) as (keyof InvoiceRow)[],
        whileStatus: 'open',
        entry: timelineEntry(voided, { type: 'voided', reason: body.reason ?? null }, actor, moment.now),
        event: billingEvent(BILLING_SUBJECTS.invoiceVoided, { object: invoiceView(voided, loaded.lines, moment.view) }, actor, moment.now),
      });
      if (!written) throw new StaleRead();
      deps.announce();
      return { data: invoiceSummaryView(voided, moment.view) };
    });
};

export type VoidInvoice = ReturnType<typeof voidInvoice>;
