import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { downloadInvoiceEinvoice, downloadPublicInvoiceEinvoice, PdfQuery } from './einvoices.ts';
import { PublicTokenPathParams } from './public-link.ts';

export * from './einvoices.ts';

const service = 'documents';

export const PDF_CONTENT_TYPE = 'application/pdf';
export const HTML_CONTENT_TYPE = 'text/html; charset=utf-8';

export const downloadInvoicePdf = defineOperation({
  operationId: 'downloadInvoicePdf',
  summary: 'Download a finalized invoice as a PDF',
  description:
    'Rendered once from the finalization snapshot and stored, so it never changes afterwards: later edits to the business profile or the customer do not reach it. `ETag` is the SHA-256 (hex) of the bytes; `If-None-Match` with it answers 304. A draft is a 400. `format=facturx` gives the Factur-X PDF (PDF/A-3, the CII XML of profile EN 16931 attached as `factur-x.xml`), stored the same way; it answers 400 with one `errors` entry per missing field when the invoice lacks what EN 16931 needs.',
  tag: 'Invoices', service, method: 'GET', path: '/api/v1/invoices/:id/pdf', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  query: PdfQuery,
  responses: {
    200: { description: 'The PDF, with `Content-Disposition` naming the invoice number.', contentType: PDF_CONTENT_TYPE },
    304: { description: 'The PDF named by `If-None-Match` is the current one.' },
  },
});

export const viewPublicInvoice = defineOperation({
  operationId: 'viewPublicInvoice',
  summary: 'The public invoice page',
  description:
    'No credentials: the link itself is the secret. The formatted invoice with its current status, the SHA-256 of its PDF and download links: the PDF, and where the invoice qualifies, the Factur-X PDF and the e-invoice XML (UBL and CII). Unknown tokens, rotated-away tokens and drafts are a 404; requests are rate-limited per client address.',
  tag: 'Public pages', service, method: 'GET', path: '/i/:token', scope: null, idempotency: 'none',
  params: PublicTokenPathParams,
  errors: [429],
  responses: {
    200: {
      description: 'An HTML page (noindex, no referrer).',
      contentType: HTML_CONTENT_TYPE,
      example: '<!doctype html><html lang="en"><head><title>Invoice INV/2026/0042</title>…</head><body>…</body></html>',
    },
  },
});

export const downloadPublicInvoicePdf = defineOperation({
  operationId: 'downloadPublicInvoicePdf',
  summary: 'The PDF behind the public invoice page',
  description: 'The same bytes as `GET /api/v1/invoices/{id}/pdf`: the plain PDF, or with `format=facturx` the Factur-X PDF. No credentials; 404 as for the page.',
  tag: 'Public pages', service, method: 'GET', path: '/i/:token/pdf', scope: null, idempotency: 'none',
  params: PublicTokenPathParams,
  query: PdfQuery,
  errors: [429],
  responses: { 200: { description: 'The PDF, as an attachment named after the invoice number.', contentType: PDF_CONTENT_TYPE } },
});

export const documentOperations = [downloadInvoicePdf, downloadInvoiceEinvoice, viewPublicInvoice, downloadPublicInvoicePdf, downloadPublicInvoiceEinvoice];
