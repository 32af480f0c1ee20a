import { BILLING_SUBJECTS, type PayInvoiceBody, type VoidInvoiceBody } from '@invoicing/contracts';
import { invalidRequest, notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { addBillingEvent } from '../../shared/events.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { timelineRepository } from '../timeline/timeline.repository.ts';
import { assertPayable, assertVoidable, invoiceSummaryView, invoiceView } from './invoice.domain.ts';
import { invoiceIdOf, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

/**
 * Pay and void: the last two transitions. Each locks the invoice, so of two concurrent pays (or a
 * pay and a void) exactly one finds it open; the others see the new status and get a 409. The
 * event carries the whole invoice, lines included, although the response omits them.
 */
export const settleInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);
  const timeline = timelineRepository(deps.em);

  return {
    pay: async (actor: Actor, publicId: string, body: PayInvoiceBody) => {
      const id = invoiceIdOf(publicId);
      const moment = await workspaceMoment(deps, actor);
      if (body.paid_on !== undefined && body.paid_on > moment.local.date) {
        throw invalidRequest('paid_on may not be in the future.', [{ path: 'paid_on', message: `is after today (${moment.local.date})` }]);
      }
      const row = await deps.em.transactional(async (tx) => {
        const invoice = await invoices.findForUpdate(tx, actor.workspaceId, id);
        if (!invoice) throw notFound('invoice', publicId);
        assertPayable(invoice);
        tx.assign(invoice, {
          status: 'paid',
          paidAt: body.paid_on !== undefined ? new Date(`${body.paid_on}T00:00:00.000Z`) : moment.now,
          paymentReference: body.payment_reference ?? null,
          amountPaid: invoice.total,
          amountDue: 0,
          updatedAt: moment.now,
        } satisfies Partial<InvoiceRow>);
        const fact = { type: 'paid' as const, paid_on: body.paid_on ?? moment.local.date, payment_reference: body.payment_reference ?? null };
        timeline.add(tx, timelineEntry(invoice, fact, actor, moment.now));
        const view = invoiceView(invoice, await invoices.linesOf(tx, id), moment.view);
        await addBillingEvent(tx, BILLING_SUBJECTS.invoicePaid, { object: view }, actor, moment.now);
        return invoice;
      });
      deps.announce();
      return { data: invoiceSummaryView(row, moment.view) };
    },

    void: async (actor: Actor, publicId: string, body: VoidInvoiceBody) => {
      const id = invoiceIdOf(publicId);
      const moment = await workspaceMoment(deps, actor);
      const row = await deps.em.transactional(async (tx) => {
        const invoice = await invoices.findForUpdate(tx, actor.workspaceId, id);
        if (!invoice) throw notFound('invoice', publicId);
        assertVoidable(invoice);
        tx.assign(invoice, { status: 'void', voidedAt: moment.now, voidReason: body.reason ?? null, amountDue: 0, updatedAt: moment.now } satisfies Partial<InvoiceRow>);
        timeline.add(tx, timelineEntry(invoice, { type: 'voided', reason: body.reason ?? null }, actor, moment.now));
        const view = invoiceView(invoice, await invoices.linesOf(tx, id), moment.view);
        await addBillingEvent(tx, BILLING_SUBJECTS.invoiceVoided, { object: view }, actor, moment.now);
        return invoice;
      });
      deps.announce();
      return { data: invoiceSummaryView(row, moment.view) };
    },
  };
};

export type SettleInvoice = ReturnType<typeof settleInvoice>;
