import { BILLING_SUBJECTS, type PayInvoiceBody, type VoidInvoiceBody } from '@invoicing/contracts';
import { invalidRequest, notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { timelineEntry, type TimelineFact } from '../timeline/timeline.domain.ts';
import { assertPayable, assertVoidable, invoiceSummaryView, invoiceView } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps, type WorkspaceMoment } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

type Settlement = {
  subject: typeof BILLING_SUBJECTS.invoicePaid | typeof BILLING_SUBJECTS.invoiceVoided;
  guard: (row: InvoiceRow) => void;
  changes: (row: InvoiceRow, moment: WorkspaceMoment) => Partial<InvoiceRow>;
  fact: (moment: WorkspaceMoment) => TimelineFact;
};

/**
 * Pay and void: the last two transitions, each one statement that writes only while the invoice
 * is still open. Of two concurrent pays (or a pay and a void) exactly one finds it open; the
 * others write nothing, read the invoice again and get the 409 its new status calls for. The event
 * carries the whole invoice, lines included, although the response omits them.
 */
export const settleInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);

  const settle = (actor: Actor, publicId: string, settlement: Settlement) =>
    retryingStaleReads(async () => {
      const id = invoiceIdOf(publicId);
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, id);
      if (!loaded) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, loaded.account);
      settlement.guard(loaded.invoice);
      const changes = settlement.changes(loaded.invoice, moment);
      const settled: InvoiceRow = { ...loaded.invoice, ...changes, updatedAt: moment.now };
      const written = await invoices.changeWhileStatus({
        invoice: settled,
        properties: [...(Object.keys(changes) as (keyof InvoiceRow)[]), 'updatedAt'],
        whileStatus: 'open',
        timeline: [timelineEntry(settled, settlement.fact(moment), actor, moment.now)],
        events: [billingEvent(settlement.subject, { object: invoiceView(settled, loaded.lines, moment.view) }, actor, moment.now)],
      });
      // Someone else settled it first: read it again, so the guard answers for its new status.
      if (!written) throw new StaleRead();
      deps.announce();
      return { data: invoiceSummaryView(settled, moment.view) };
    });

  return {
    pay: (actor: Actor, publicId: string, body: PayInvoiceBody) =>
      settle(actor, publicId, {
        subject: BILLING_SUBJECTS.invoicePaid,
        guard: assertPayable,
        changes: (row, moment) => {
          if (body.paid_on !== undefined && body.paid_on > moment.local.date) {
            throw invalidRequest('paid_on may not be in the future.', [{ path: 'paid_on', message: `is after today (${moment.local.date})` }]);
          }
          return {
            status: 'paid',
            paidAt: body.paid_on !== undefined ? new Date(`${body.paid_on}T00:00:00.000Z`) : moment.now,
            paymentReference: body.payment_reference ?? null,
            amountPaid: row.total,
            amountDue: 0,
          };
        },
        fact: (moment) => ({ type: 'paid', paid_on: body.paid_on ?? moment.local.date, payment_reference: body.payment_reference ?? null }),
      }),

    void: (actor: Actor, publicId: string, body: VoidInvoiceBody) =>
      settle(actor, publicId, {
        subject: BILLING_SUBJECTS.invoiceVoided,
        guard: assertVoidable,
        changes: (_row, moment) => ({ status: 'void', voidedAt: moment.now, voidReason: body.reason ?? null, amountDue: 0 }),
        fact: () => ({ type: 'voided', reason: body.reason ?? null }),
      }),
  };
};

export type SettleInvoice = ReturnType<typeof settleInvoice>;
