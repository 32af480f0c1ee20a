import { toPublicId, type Payment, type PaymentMethod } from '@invoicing/contracts';
import { invalidRequest, invalidState } from '@invoicing/service-kit/app-error';
import { newId } from '@invoicing/service-kit/ids';
import { amountRemainingOf, transition, type TransitionMoment } from '../invoices/invoice.domain.ts';
import type { InvoiceRow } from '../invoices/invoice.entity.ts';
import type { PaymentRow } from './payment.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** A payment asked for: by hand (createPayment, pay) or from a bank statement entry. */
export interface PaymentRequest {
  amount: number;
  paidOn?: string | undefined;
  paymentReference?: string | null | undefined;
  method: PaymentMethod;
  bankStatementEntryId?: string | null | undefined;
  /** The currency the money arrived in (a bank statement's); by hand it is the invoice's. */
  currency?: string | undefined;
}

/** The columns of the invoice a payment changes. */
export type PaidColumns = Pick<InvoiceRow, 'status' | 'amountDue' | 'amountPaid' | 'paidAt' | 'paymentReference' | 'updatedAt'>;

export const PAID_PROPERTIES = ['status', 'amountDue', 'amountPaid', 'paidAt', 'paymentReference', 'updatedAt'] as const satisfies readonly (keyof PaidColumns)[];

/** What applying a payment gives: the payment's row, the invoice's new columns, and whether it became paid. */
export interface AppliedPayment {
  payment: PaymentRow;
  columns: PaidColumns;
  /** The payment brought `amount_remaining` to 0: the invoice is now paid. */
  settles: boolean;
}

/** A payment date is stored as midnight UTC of that date; without one, the payment is now. */
const paidAtOf = (paidOn: string | undefined, now: Date): Date => (paidOn !== undefined ? new Date(`${paidOn}T00:00:00.000Z`) : now);

/**
 * Whether a payment of `amount` can be recorded on the invoice now (decisions.md, "Payments and
 * bank statements"): only an open or overdue invoice takes payments (409), not after today (400),
 * and for at most what is still to be paid (400). Throws, or answers nothing.
 */
export const assertPayable = (invoice: Pick<InvoiceRow, 'status' | 'amountDue' | 'amountPaid'>, amount: number, { paidOn, today }: { paidOn?: string | undefined; today: string }): void => {
  if (invoice.status === 'paid') throw invalidState('This invoice is already paid.');
  if (invoice.status !== 'open') throw invalidState(`This invoice is ${invoice.status}: only an open or overdue invoice takes payments.`);
  if (paidOn !== undefined && paidOn > today) throw invalidRequest('paid_on may not be in the future.', [{ path: 'paid_on', message: `is after today (${today})` }]);
  const remaining = amountRemainingOf(invoice);
  if (amount > remaining) throw invalidRequest('The amount is more than the invoice still has to be paid.', [{ path: 'amount', message: `is above amount_remaining (${remaining})` }]);
};

/**
 * A payment applied to an invoice as it is now (read under its row lock): the payment, and the
 * invoice's columns after it. The payment that brings `amount_remaining` to 0 makes the invoice
 * paid through `transition` (the one place a status changes), with that payment's date and reference.
 */
export const applyPayment = (invoice: InvoiceRow, request: PaymentRequest, at: TransitionMoment): AppliedPayment => {
  assertPayable(invoice, request.amount, { paidOn: request.paidOn, today: at.today });
  if (request.currency !== undefined && request.currency !== invoice.currency) {
    throw invalidRequest(`The payment is in ${request.currency}, the invoice in ${invoice.currency}.`, [{ path: 'currency', message: `is not the invoice's currency (${invoice.currency})` }]);
  }
  const paidAt = paidAtOf(request.paidOn, at.now);
  const payment: PaymentRow = {
    id: newId(),
    workspaceId: invoice.workspaceId,
    invoiceId: invoice.id,
    amount: request.amount,
    currency: invoice.currency,
    paidAt,
    paymentReference: request.paymentReference ?? null,
    method: request.method,
    bankStatementEntryId: request.bankStatementEntryId ?? null,
    createdAt: at.now,
  };
  const amountPaid = invoice.amountPaid + request.amount;
  const settles = amountPaid === invoice.amountDue;
  if (!settles) {
    return { payment, settles, columns: { status: invoice.status, amountDue: invoice.amountDue, amountPaid, paidAt: invoice.paidAt ?? null, paymentReference: invoice.paymentReference ?? null, updatedAt: at.now } };
  }
  const paid = transition(invoice, { to: 'paid', paidOn: request.paidOn, paymentReference: request.paymentReference }, at);
  return {
    payment,
    settles,
    columns: { status: paid.status, amountDue: paid.amountDue, amountPaid, paidAt: paid.paidAt ?? paidAt, paymentReference: paid.paymentReference ?? null, updatedAt: at.now },
  };
};

export const paymentView = (row: PaymentRow): Payment => ({
  id: toPublicId('payment', row.id),
  object: 'payment',
  livemode: livemodeOf(row.workspaceId),
  invoice: toPublicId('invoice', row.invoiceId),
  amount: row.amount,
  currency: row.currency,
  paid_at: row.paidAt.toISOString(),
  payment_reference: row.paymentReference ?? null,
  method: row.method,
  bank_statement_entry: row.bankStatementEntryId ? toPublicId('bankStatementEntry', row.bankStatementEntryId) : null,
  created: row.createdAt.toISOString(),
});

/**
 * The positions of payments asked for, in groups of at most `size` invoices taken in ID order:
 * each invoice's payments in one group, in the order asked (each applies to what the one before
 * left), and the groups in ID order too, so invoices locked group after group are still locked in
 * one global order (never a deadlock with another import locking some of the same).
 */
export const inInvoiceGroups = (asked: readonly { invoiceId: string }[], size: number): number[][] => {
  const invoiceIds = [...new Set(asked.map(({ invoiceId }) => invoiceId))].sort();
  const groupOf = new Map(invoiceIds.map((id, index) => [id, Math.floor(index / size)]));
  const groups: number[][] = Array.from({ length: Math.ceil(invoiceIds.length / size) }, () => []);
  asked.forEach(({ invoiceId }, position) => groups[groupOf.get(invoiceId)!]!.push(position));
  return groups;
};
