import { Account, dataOf, Invoice, InvoiceByPublicToken, invoiceByPublicTokenPath, type PdfFormat } from '@invoicing/contracts';
import type { Caller, ServiceClient } from '@invoicing/service-kit';

/** What documents reads from billing: invoices, always as billing's API returns them. */
export interface BillingReader {
  /** The caller's invoice (id as the client sent it), or undefined when the workspace has none by that id. */
  invoice: (caller: Caller, id: string) => Promise<Invoice | undefined>;
  /** The finalized invoice behind a public link, with its workspace; undefined for unknown, rotated-away and draft tokens. */
  invoiceByPublicToken: (token: string, requestId: string) => Promise<InvoiceByPublicToken | undefined>;
  /** The caller's account setting `pdf_format`: what a PDF download gives when the request names no format. */
  pdfFormat: (caller: Caller) => Promise<PdfFormat>;
}

const InvoiceResponse = dataOf(Invoice);
const AccountResponse = dataOf(Account);

export const billingReader = (client: ServiceClient): BillingReader => ({
  invoice: async (caller, id) => (await client.get(`/api/v1/invoices/${encodeURIComponent(id)}`, caller, InvoiceResponse))?.data,
  invoiceByPublicToken: (token, requestId) => client.get(invoiceByPublicTokenPath(token), { requestId }, InvoiceByPublicToken),
  pdfFormat: async (caller) => (await client.get('/api/v1/account', caller, AccountResponse))?.data.pdf_format ?? 'standard',
});
