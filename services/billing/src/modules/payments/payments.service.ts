import { BILLING_SUBJECTS, type CreatePaymentBody, type Invoice, type PayInvoiceBody } from '@invoicing/contracts';
import { AppError, captureTraceContext, notFound, type OutboxEntry, type TraceCarrier } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { amountRemainingOf, invoiceSummaryView, invoiceView } from '../invoices/invoice.domain.ts';
import { invoiceIdOf, workspaceMoment, type InvoiceDeps, type WorkspaceMoment } from '../invoices/invoice-deps.ts';
import type { InvoiceRow } from '../invoices/invoice.entity.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { applyPayment, inInvoiceGroups, paymentView, type PaidColumns, type PaymentRequest } from './payment.domain.ts';
import type { PaymentRow } from './payment.entity.ts';
import { paymentRepository } from './payment.repository.ts';

/** Payments written by one statement (about 10 parameters each, 8 for each event; PostgreSQL takes 65,535). */
const PAYMENTS_PER_STATEMENT = 1_000;
/** Invoices locked, read and paid together: a bank statement of thousands holds one group of them in memory at a time. */
const INVOICES_PER_GROUP = 1_000;

/** A payment asked for on an invoice (by its UUID). */
export interface PaymentAsked {
  invoiceId: string;
  request: PaymentRequest;
}

/** What became of a payment asked for: recorded (with the invoice after it), or refused with the error a request would get. */
export type PaymentOutcome = { payment: PaymentRow; invoice: InvoiceRow } | { refused: AppError };

/**
 * Records payments inside `tx`, the one way every payment is recorded (createPayment, pay, a bank
 * statement's matches, an entry assigned by hand): lock their invoices (by ID, so concurrent
 * payments queue on each invoice and never deadlock), apply each payment in turn to its invoice as
 * the payments before it left it (`applyPayment`: a refused one changes nothing), then write them
 * in one statement with their events: `invoice.payment_recorded` for each, carrying the invoice
 * as that payment left it, and `invoice.paid` (with a timeline entry) for the payment that brings
 * `amount_remaining` to 0 — so once per invoice, since a paid invoice takes no further payment.
 */
export const recordPaymentsIn = async (tx: EntityManager, actor: Actor, asked: readonly PaymentAsked[], moment: WorkspaceMoment): Promise<PaymentOutcome[]> => {
  const outcomes: PaymentOutcome[] = [];
  for (const positions of inInvoiceGroups(asked, INVOICES_PER_GROUP)) {
    const recorded = await recordGroupIn(tx, actor, positions.map((position) => asked[position]!), moment);
    positions.forEach((position, index) => (outcomes[position] = recorded[index]!));
  }
  return outcomes;
};

/** `recordPaymentsIn` for payments of at most INVOICES_PER_GROUP invoices. */
const recordGroupIn = async (tx: EntityManager, actor: Actor, asked: readonly PaymentAsked[], moment: WorkspaceMoment): Promise<PaymentOutcome[]> => {
  const payments = paymentRepository(tx);
  const locked = await payments.lockInvoices(tx, actor.workspaceId, [...new Set(asked.map(({ invoiceId }) => invoiceId))]);
  const current = new Map(locked.map((invoice) => [invoice.id, invoice]));
  const at = { now: moment.now, today: moment.local.date };
  const applied: { payment: PaymentRow; invoice: InvoiceRow; settles: boolean; paidOn: string }[] = [];
  const outcomes = asked.map(({ invoiceId, request }): PaymentOutcome => {
    const invoice = current.get(invoiceId);
    if (!invoice) return { refused: notFound('invoice', invoiceId) };
    try {
      const { payment, columns, settles } = applyPayment(invoice, request, at);
      const after: InvoiceRow = { ...invoice, ...columns };
      current.set(invoiceId, after);
      applied.push({ payment, invoice: after, settles, paidOn: request.paidOn ?? moment.local.date });
      return { payment, invoice: after };
    } catch (error) {
      if (error instanceof AppError) return { refused: error };
      throw error;
    }
  });
  if (applied.length === 0) return outcomes;

  const lines = await invoiceRepository(tx).linesOfEach([...new Set(applied.map(({ invoice }) => invoice.id))]);
  const traceContext = captureTraceContext() ?? null;
  // A statement holds at most 65,535 parameters: a large bank statement's payments go in groups.
  for (let start = 0; start < applied.length; start += PAYMENTS_PER_STATEMENT) {
    const group = applied.slice(start, start + PAYMENTS_PER_STATEMENT);
    const events: OutboxEntry[] = [];
    const timeline: TimelineEntryRow[] = [];
    for (const { payment, invoice, settles, paidOn } of group) {
      const data = { object: invoiceView(invoice, lines.get(invoice.id) ?? [], moment.view) };
      events.push({ envelope: billingEvent(BILLING_SUBJECTS.invoicePaymentRecorded, data, actor, moment.now), traceContext });
      if (settles) {
        const paid = paidReport(invoice, data, actor, moment.now, { paidOn, paymentReference: payment.paymentReference ?? null, traceContext });
        events.push(paid.event);
        timeline.push(paid.entry);
      }
    }
    const invoiceIds = [...new Set(group.map(({ invoice }) => invoice.id))];
    await payments.record(tx, {
      workspaceId: actor.workspaceId,
      invoices: invoiceIds.map((id) => ({ id, columns: paidColumnsOf(current.get(id)!) })),
      payments: group.map(({ payment }) => payment),
      timeline,
      events,
    });
  }
  return outcomes;
};

/**
 * What reports that an invoice became paid: its `invoice.paid` event and its `paid` timeline
 * entry, written with the change that made it paid (the payment that settles it, or the
 * finalization of a draft its prepaid amount settles), so once per invoice.
 */
export const paidReport = (
  invoice: Pick<InvoiceRow, 'id' | 'workspaceId'>,
  data: { object: Invoice },
  actor: Actor,
  at: Date,
  { paidOn, paymentReference, traceContext }: { paidOn: string | null; paymentReference: string | null; traceContext: TraceCarrier | null },
): { event: OutboxEntry; entry: TimelineEntryRow } => ({
  event: { envelope: billingEvent(BILLING_SUBJECTS.invoicePaid, data, actor, at), traceContext },
  entry: timelineEntry(invoice, { type: 'paid', paid_on: paidOn, payment_reference: paymentReference }, actor, at),
});

const paidColumnsOf = (row: InvoiceRow): PaidColumns => ({
  status: row.status,
  amountDue: row.amountDue,
  amountPaid: row.amountPaid,
  paidAt: row.paidAt ?? null,
  paymentReference: row.paymentReference ?? null,
  updatedAt: row.updatedAt,
});

const recordedOrThrow = (outcome: PaymentOutcome): { payment: PaymentRow; invoice: InvoiceRow } => {
  if ('refused' in outcome) throw outcome.refused;
  return outcome;
};

/** Payments recorded by hand, and the list of an invoice's payments. */
export const paymentsService = (deps: InvoiceDeps) => {
  const recordOne = (actor: Actor, publicId: string, request: (invoice: InvoiceRow) => PaymentRequest) =>
    deps.em.transactional(async (tx) => {
      const invoiceId = invoiceIdOf(publicId);
      const [invoice] = await paymentRepository(tx).lockInvoices(tx, actor.workspaceId, [invoiceId]);
      if (!invoice) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, undefined, invoice.testClockId);
      const recorded = recordedOrThrow((await recordPaymentsIn(tx, actor, [{ invoiceId, request: request(invoice) }], moment))[0]!);
      deps.announce();
      return { ...recorded, moment };
    });

  return {
    create: async (actor: Actor, publicId: string, body: CreatePaymentBody) => {
      const { payment } = await recordOne(actor, publicId, () => ({ amount: body.amount, paidOn: body.paid_on, paymentReference: body.payment_reference, method: body.method }));
      return { data: paymentView(payment) };
    },

    /** `pay`: one payment of everything still to be paid. */
    payRemaining: async (actor: Actor, publicId: string, body: PayInvoiceBody) => {
      const { invoice, moment } = await recordOne(actor, publicId, (invoice) => ({
        // An invoice with nothing left to pay (paid, void, draft) is refused by its status first.
        amount: Math.max(amountRemainingOf(invoice), 1),
        paidOn: body.paid_on,
        paymentReference: body.payment_reference,
        method: 'bank_transfer',
      }));
      return { data: invoiceSummaryView(invoice, moment.view) };
    },

    list: async (actor: Actor, publicId: string) => {
      const invoice = await invoiceRepository(deps.em).findInWorkspace(actor.workspaceId, invoiceIdOf(publicId));
      if (!invoice) throw notFound('invoice', publicId);
      const rows = await paymentRepository(deps.em).ofInvoice(invoice.id);
      return { data: rows.map(paymentView), next_cursor: null };
    },
  };
};

export type PaymentsService = ReturnType<typeof paymentsService>;
