import type { z } from 'zod';
import { dataOf } from '../common.ts';
import { idReference } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { CreateInvoiceBody, Invoice } from './invoices.ts';

/**
 * A draft made by a subscription: the public create's body plus the `sub_` ID it carries. Only
 * the subscriptions service sends it, so a client cannot tie an invoice to a subscription.
 */
export const CreateSubscriptionInvoiceBody = CreateInvoiceBody.extend({
  subscription: idReference('subscription').describe('The `sub_` ID of the subscription that makes the invoice.'),
});
export type CreateSubscriptionInvoiceBody = z.input<typeof CreateSubscriptionInvoiceBody>;

/**
 * Billing's internal route for the subscriptions service (the gateway never forwards to it): keyed
 * like the public create (`x-idempotency-key`), so a period's invoice is written once.
 */
export const createSubscriptionInvoice = defineOperation({
  operationId: 'createSubscriptionInvoice',
  summary: 'Create a subscription’s draft invoice (internal)',
  tag: 'Internal', service: 'billing', method: 'POST', path: '/internal/v1/subscription-invoices', scope: 'invoices:write', idempotency: 'required',
  body: CreateSubscriptionInvoiceBody,
  errors: [404],
  responses: { 201: { description: 'The draft.', schema: dataOf(Invoice) } },
});
