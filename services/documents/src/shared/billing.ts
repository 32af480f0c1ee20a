import { createHash } from 'node:crypto';
import {
  Account,
  ATTACHMENT_LISTED_SHA256_HEADER,
  ATTACHMENT_LISTED_SIZE_HEADER,
  ATTACHMENT_MAX_BYTES,
  dataOf,
  Invoice,
  InvoiceByPublicToken,
  invoiceAttachmentContentPath,
  invoiceByPublicTokenPath,
  type PdfFormat,
} from '@invoicing/contracts';
import { notFound, type Caller, type ServiceClient } from '@invoicing/service-kit';

/** What documents reads from billing: invoices, always as billing's API returns them. */
export interface BillingReader {
  /** The caller's invoice (id as the client sent it), or undefined when the workspace has none by that id. */
  invoice: (caller: Caller, id: string) => Promise<Invoice | undefined>;
  /** The finalized invoice behind a public link, with its workspace; undefined for unknown, rotated-away and draft tokens. */
  invoiceByPublicToken: (token: string, requestId: string) => Promise<InvoiceByPublicToken | undefined>;
  /** The caller's account setting `pdf_format`: what a PDF download gives when the request names no format. */
  pdfFormat: (caller: Caller) => Promise<PdfFormat>;
  /**
   * The bytes of one supporting document (`att_…`) of a finalized invoice (`in_…` or UUID) of the
   * workspace (UUID), as its e-invoices embed them. Checked against the size and SHA-256 the
   * invoice lists for it: bytes that differ throw (a 500: billing's file and listing disagree, or
   * the answer was cut). A draft, another workspace's invoice or an unlisted file: 404 not_found.
   */
  attachmentContent: (workspaceId: string, invoiceId: string, attachmentId: string) => Promise<Buffer>;
}

/** Billing answered bytes other than those the invoice lists. */
export class AttachmentMismatchError extends Error {
  override name = 'AttachmentMismatchError';
}

const InvoiceResponse = dataOf(Invoice);
const AccountResponse = dataOf(Account);

export const billingReader = (client: ServiceClient): BillingReader => ({
  invoice: async (caller, id) => (await client.get(`/api/v1/invoices/${encodeURIComponent(id)}`, caller, InvoiceResponse))?.data,
  invoiceByPublicToken: (token, requestId) => client.get(invoiceByPublicTokenPath(token), { requestId }, InvoiceByPublicToken),
  pdfFormat: async (caller) => (await client.get('/api/v1/account', caller, AccountResponse))?.data.pdf_format ?? 'standard',
  attachmentContent: async (workspaceId, invoiceId, attachmentId) => {
    const path = invoiceAttachmentContentPath(workspaceId, invoiceId, attachmentId);
    const fetched = await client.getDocument(path, { requestId: `attachment-${attachmentId}` }, ATTACHMENT_MAX_BYTES);
    if (!fetched) throw notFound('attachment', attachmentId);
    const listedSize = Number(fetched.headers[ATTACHMENT_LISTED_SIZE_HEADER]);
    const listedSha256 = fetched.headers[ATTACHMENT_LISTED_SHA256_HEADER];
    const sha256 = createHash('sha256').update(fetched.bytes).digest('hex');
    if (fetched.bytes.length !== listedSize || sha256 !== listedSha256) {
      throw new AttachmentMismatchError(`${path}: ${fetched.bytes.length} bytes with SHA-256 ${sha256}, but the invoice lists ${String(listedSize)} bytes with ${String(listedSha256)}`);
    }
    return fetched.bytes;
  },
});
