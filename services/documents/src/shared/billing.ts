import { dataOf, Invoice, InvoiceByPublicToken, invoiceByPublicTokenPath } from '@invoicing/contracts';
import type { Caller, ServiceClient } from '@invoicing/service-kit';

/** What documents reads from billing: invoices, always as billing's API returns them. */
export interface BillingReader {
  /** The caller's invoice (id as the client sent it), or undefined when the workspace has none by that id. */
  invoice: (caller: Caller, id: string) => Promise<Invoice | undefined>;
  /** The finalized invoice behind a public link, with its workspace; undefined for unknown, rotated-away and draft tokens. */
  invoiceByPublicToken: (token: string, requestId: string) => Promise<InvoiceByPublicToken | undefined>;
}

const InvoiceResponse = dataOf(Invoice);

export const billingReader = (client: ServiceClient): BillingReader => ({
  invoice: async (caller, id) => (await client.get(`/api/v1/invoices/${encodeURIComponent(id)}`, caller, InvoiceResponse))?.data,
  invoiceByPublicToken: (token, requestId) => client.get(invoiceByPublicTokenPath(token), { requestId }, InvoiceByPublicToken),
});
