import { z } from 'zod';
import { dataOf, NoFieldsBody } from '../common.ts';
import { Invoice } from '../billing/invoices.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

/** The path parameter of the public pages: any string; one that names no finalized invoice is a 404. */
export const PublicTokenPathParams = z.strictObject({
  token: z.string().max(200).describe('The invoice’s `public_url_token`.'),
});

/**
 * Billing's internal answer to "which invoice has this public token" (no workspace on the call):
 * the invoice as the API reads it now, current status included, and the workspace it belongs to.
 * Unknown, rotated-away and draft tokens are a 404.
 */
export const InvoiceByPublicToken = z.object({
  workspace_id: z.uuid(),
  invoice: Invoice,
});
export type InvoiceByPublicToken = z.infer<typeof InvoiceByPublicToken>;

/** Billing's internal route behind the public pages; reached with the internal token only, never through the gateway. */
export const invoiceByPublicTokenPath = (token: string): string => `/internal/v1/invoices/by-token/${encodeURIComponent(token)}`;

export const rotatePublicLink = defineOperation({
  operationId: 'rotateInvoicePublicLink',
  summary: 'Issue a new public link for a finalized invoice',
  description:
    'Takes no body (none, or `{}`). Gives the invoice a new `public_url_token` (and `public_url`); the old link answers 404 from then on. The PDF does not change. 409 `invalid_state` on a draft, which has no public link.',
  tag: 'Invoices', service: 'billing', method: 'POST', path: '/api/v1/invoices/:id/public_link/rotate', scope: 'invoices:write', idempotency: 'optional',
  params: IdPathParams,
  body: NoFieldsBody,
  bodyOptional: true,
  responses: { 200: { description: 'The invoice with its new public link.', schema: dataOf(Invoice) } },
});

export const publicLinkOperations = [rotatePublicLink];
