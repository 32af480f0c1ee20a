import { z } from 'zod';
import { EINVOICE_PROFILES, PdfFormat } from '../billing/einvoice-fields.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';
import { PublicTokenPathParams } from './public-link.ts';

const service = 'documents';

export const XML_CONTENT_TYPE = 'application/xml';
export const EINVOICE_SYNTAXES = ['ubl', 'cii'] as const;
export type EinvoiceSyntax = (typeof EINVOICE_SYNTAXES)[number];

export const EinvoiceQuery = z.strictObject({
  syntax: z
    .enum(EINVOICE_SYNTAXES)
    .meta({ id: 'EinvoiceSyntax' })
    .default('ubl')
    .describe('`ubl`: OASIS UBL 2.1 Invoice (default); `cii`: UN/CEFACT Cross Industry Invoice D16B.'),
  profile: z
    .enum(EINVOICE_PROFILES)
    .meta({ id: 'EinvoiceProfile' })
    .default('en16931')
    .describe('`en16931`: the European standard EN 16931 (default); `xrechnung`: its German CIUS XRechnung 3.0 (buyer reference, seller contact, payment account and electronic addresses required).'),
});
export type EinvoiceQuery = z.infer<typeof EinvoiceQuery>;

export const PdfQuery = z.strictObject({
  format: PdfFormat
    .optional()
    .describe(
      '`standard`: the plain PDF; `facturx`: the Factur-X / ZUGFeRD PDF (PDF/A-3 with the CII XML attached as `factur-x.xml`, profile EN 16931). Absent: the account’s `pdf_format`; with `facturx` there, an invoice that lacks what EN 16931 needs gets the plain PDF.',
    ),
});
export type PdfQuery = z.infer<typeof PdfQuery>;

const EXAMPLE_UBL =
  '<?xml version="1.0" encoding="UTF-8"?>\n<Invoice xmlns="urn:oasis:names:specification:ubl:schema:xsd:Invoice-2" …>\n  <cbc:CustomizationID>urn:cen.eu:en16931:2017</cbc:CustomizationID>\n  <cbc:ID>INV/2026/0042</cbc:ID>\n  …\n</Invoice>\n';

const EINVOICE_RULES =
  'Written once from the finalization snapshot (so later edits to the account or the customer never change it) and stored with its SHA-256, which is the `ETag` (`If-None-Match` answers 304); the same invoice always gives the same bytes. Amounts use the currency’s ISO 4217 exponent, less trailing zeros beyond the two decimals EN 16931 allows. A draft is a 400, as for its PDF. An invoice that lacks data the profile needs is a 400 `invalid_request` with one `errors` entry per missing field (`path` the invoice field, `message` naming the rule), never an invalid document; the invoice’s `einvoice` says beforehand which profiles it qualifies for.';

export const downloadInvoiceEinvoice = defineOperation({
  operationId: 'downloadInvoiceEinvoice',
  summary: 'Download a finalized invoice as an EN 16931 e-invoice (UBL or CII, EN 16931 or XRechnung)',
  description: EINVOICE_RULES,
  tag: 'Invoices', service, method: 'GET', path: '/api/v1/invoices/:id/einvoice', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  query: EinvoiceQuery,
  responses: {
    200: { description: 'The XML, as an attachment named after the invoice number, syntax and profile.', contentType: XML_CONTENT_TYPE, example: EXAMPLE_UBL },
    304: { description: 'The document named by `If-None-Match` is the current one.' },
  },
});

export const downloadPublicInvoiceEinvoice = defineOperation({
  operationId: 'downloadPublicInvoiceEinvoice',
  summary: 'The e-invoice behind the public invoice page',
  description: 'The same bytes as `GET /api/v1/invoices/{id}/einvoice`, with the same parameters and the same 400 for missing data. No credentials; 404 as for the page.',
  tag: 'Public pages', service, method: 'GET', path: '/i/:token/einvoice', scope: null, idempotency: 'none',
  params: PublicTokenPathParams,
  query: EinvoiceQuery,
  errors: [429],
  responses: { 200: { description: 'The XML, as an attachment named after the invoice number.', contentType: XML_CONTENT_TYPE, example: EXAMPLE_UBL } },
});
