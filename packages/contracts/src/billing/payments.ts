import { z } from 'zod';
import { CalendarDate, dataOf, Livemode, OPTIONAL_TEXT_RULE, optionalText, pageOf, Timestamp } from '../common.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

/** How a payment arrived (decisions.md, "Payments and bank statements"). */
export const PAYMENT_METHODS = ['bank_transfer', 'card', 'cash', 'check', 'direct_debit', 'other'] as const;
export const PaymentMethod = z.enum(PAYMENT_METHODS).meta({ id: 'PaymentMethod' });
export type PaymentMethod = z.infer<typeof PaymentMethod>;

export const PAYMENT_REFERENCE_MAX = 500;

export const Payment = z
  .object({
    id: z.string().meta({ example: 'pay_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('payment'),
    livemode: Livemode,
    invoice: z.string().describe('`in_` ID of the invoice paid.'),
    amount: z.int().describe('Minor units of `currency`.'),
    currency: z.string().describe('The invoice’s currency.'),
    paid_at: Timestamp.describe('When the money arrived: midnight UTC of `paid_on`, else the time it was recorded.'),
    payment_reference: z.string().nullable().describe('Free text such as a bank transaction ID; for a payment matched from a bank statement, the bank’s reference.'),
    method: PaymentMethod,
    bank_statement_entry: z.string().nullable().describe('`bse_` ID of the bank statement entry it was matched from; null for a payment recorded by hand.'),
    created: Timestamp,
  })
  .meta({ id: 'Payment' });
export type Payment = z.infer<typeof Payment>;

export const CreatePaymentBody = z
  .strictObject({
    amount: z.int().min(1).describe('Minor units, from 1 to the invoice’s `amount_remaining` (more: 400, nothing recorded).'),
    paid_on: CalendarDate.optional().describe('When the payment arrived, not after today; default: now. Stored in `paid_at` (midnight UTC of that date).'),
    payment_reference: optionalText(PAYMENT_REFERENCE_MAX).optional().describe(`Free text such as a bank transaction ID. ${OPTIONAL_TEXT_RULE}`),
    method: PaymentMethod.default('bank_transfer').describe('Default `bank_transfer`.'),
  })
  .meta({ id: 'CreatePaymentBody', examples: [{ amount: 5000, paid_on: '2026-11-20', payment_reference: 'TRX-123', method: 'bank_transfer' }] });
export type CreatePaymentBody = z.infer<typeof CreatePaymentBody>;

const tag = 'Payments';
const service = 'billing';

export const createPayment = defineOperation({
  operationId: 'createPayment',
  summary: 'Record a payment, in full or in part, received outside the service',
  description:
    'Bookkeeping only: no charge, no funds moved. Only an open or overdue invoice takes payments (409 `invalid_state`). `amount_paid` grows by `amount` and `amount_remaining` shrinks by it; the payment that brings `amount_remaining` to 0 makes the invoice `paid` (`paid_at` is that payment’s) and fires `invoice.paid`, once. Every payment fires `invoice.payment_recorded`. An amount above `amount_remaining` is a 400 and records nothing. Concurrent payments are applied one after the other: of twenty payments of a quarter each, four are recorded.',
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/payments', scope: 'payments:write', idempotency: 'required',
  params: IdPathParams,
  body: CreatePaymentBody,
  responses: { 201: { description: 'The payment recorded.', schema: dataOf(Payment) } },
});

export const listInvoicePayments = defineOperation({
  operationId: 'listInvoicePayments',
  summary: 'The payments of an invoice, oldest first',
  tag, service, method: 'GET', path: '/api/v1/invoices/:id/payments', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'Every payment of the invoice, oldest first.', schema: pageOf(Payment) } },
});

export const paymentOperations = [createPayment, listInvoicePayments];
