import type { z } from 'zod';
import { CalendarDate, dataOf } from '../common.ts';
import { idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { CreateInvoiceBody, Invoice } from './invoices.ts';

/**
 * A draft made by a subscription: the public create's body plus the `sub_` ID it carries and the
 * first day of the period it bills. Only the subscriptions service sends it, so a client cannot tie
 * an invoice to a subscription.
 */
export const CreateSubscriptionInvoiceBody = CreateInvoiceBody.extend({
  subscription: idReference('subscription').describe('The `sub_` ID of the subscription that makes the invoice.'),
  period_start: CalendarDate.describe(
    'The first day of the subscription period the invoice bills. Billing keeps one invoice per (subscription, period start): a create for a period that has one answers that invoice and writes nothing.',
  ),
});
export type CreateSubscriptionInvoiceBody = z.input<typeof CreateSubscriptionInvoiceBody>;

/**
 * Billing's internal route for the subscriptions service (the gateway never forwards to it): keyed
 * like the public create (`x-idempotency-key`), and one invoice per subscription and period
 * whatever the key (a unique index), so a period's invoice is written once even after the key's
 * record is gone.
 */
export const createSubscriptionInvoice = defineOperation({
  operationId: 'createSubscriptionInvoice',
  summary: 'Create a subscription’s draft invoice (internal)',
  tag: 'Internal', service: 'billing', method: 'POST', path: '/internal/v1/subscription-invoices', scope: 'invoices:write', idempotency: 'required',
  body: CreateSubscriptionInvoiceBody,
  errors: [404],
  responses: { 201: { description: 'The draft; or, when the period already has an invoice, that invoice as it is now.', schema: dataOf(Invoice) } },
});
