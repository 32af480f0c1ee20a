import { z } from 'zod';
import { dataOf, Livemode, NOT_BLANK, OPTIONAL_TEXT_RULE, optionalText } from '../common.ts';
import { defineOperation } from '../operation.ts';

/**
 * Supporting documents of an invoice (EN 16931 BG-24; decisions.md, "EN 16931 business terms
 * beyond the first set"): added to and removed from drafts, frozen at finalization, embedded in
 * the e-invoices.
 */
export const ATTACHMENT_CONTENT_TYPES = [
  'application/pdf',
  'image/png',
  'image/jpeg',
  'text/csv',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  'application/vnd.oasis.opendocument.spreadsheet',
] as const;
export const AttachmentContentType = z
  .enum(ATTACHMENT_CONTENT_TYPES)
  .describe('PDF, PNG, JPEG, CSV, XLSX or ODS: the MIME codes EN 16931 allows for BT-125.')
  .meta({ id: 'AttachmentContentType' });
export const ATTACHMENT_MAX_BYTES = 10_000_000;
export const ATTACHMENTS_PER_INVOICE_MAX = 5;
/** Base64 of the largest file, plus room for the other fields. */
export const ATTACHMENT_BODY_MAX_BYTES = Math.ceil(ATTACHMENT_MAX_BYTES / 3) * 4 + 64 * 1024;
export const ATTACHMENT_FILENAME_MAX = 200;

export const InvoiceAttachment = z
  .object({
    id: z.string().meta({ example: 'att_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('invoice_attachment'),
    livemode: Livemode,
    filename: z.string().describe('As sent (BT-125 filename).'),
    content_type: AttachmentContentType,
    size: z.int().describe('Bytes of the file.'),
    sha256: z.string().describe('SHA-256 (hex) of the file.'),
    description: z.string().nullable().describe('BT-123.'),
  })
  .meta({ id: 'InvoiceAttachment' });
export type InvoiceAttachment = z.infer<typeof InvoiceAttachment>;

/** Groups of four after the first bytes, and a padded last group whose unused bits are zero (canonical base64: one form per file). */
const BASE64_TAIL = '(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/][AQgw]==|[A-Za-z0-9+/]{2}[AEIMQUYcgkosw048]=)?$';
const BASE64 = `^${BASE64_TAIL}`;
const NOT_BASE64_ALPHABET = /[^A-Za-z0-9+/]/;

/**
 * What BASE64 says, checked in one linear scan: that pattern, run on a 13 MB body, exhausts V8's
 * regular-expression stack (one backtracking entry per group of four) and would answer a 500.
 */
export const isPaddedBase64 = (value: string): boolean => {
  if (value.length % 4 !== 0) return false;
  const padding = value.endsWith('==') ? 2 : value.endsWith('=') ? 1 : 0;
  if (padding === 2 && !'AQgw'.includes(value.charAt(value.length - 3))) return false;
  if (padding === 1 && !'AEIMQUYcgkosw048'.includes(value.charAt(value.length - 2))) return false;
  return !NOT_BASE64_ALPHABET.test(padding === 0 ? value : value.slice(0, -padding));
};

/**
 * The first bytes of each binary type, as the start of its base64 (`%PDF-`; the PNG signature; FF
 * D8 FF; a ZIP's `PK\x03\x04` for XLSX and ODS), as JSON Schema conditions, so a client (or a
 * fuzzer) can tell from the schema alone which files billing takes; a CSV must be UTF-8 text.
 */
const startsAs = (contentTypes: string[], start: string) => ({
  if: { required: ['content_type'], properties: { content_type: { enum: contentTypes } } },
  then: { properties: { content_base64: { pattern: `^${start}${BASE64_TAIL}` } } },
});
const SIGNATURE_CONDITIONS = [
  startsAs(['application/pdf'], 'JVBERi[0-3][A-Za-z0-9+/]'),
  startsAs(['image/png'], 'iVBORw0KGg[o-r][A-Za-z0-9+/]'),
  startsAs(['image/jpeg'], '/9j/'),
  startsAs(['application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'application/vnd.oasis.opendocument.spreadsheet'], 'UEsDB[A-P][A-Za-z0-9+/]{2}'),
];

export const CreateInvoiceAttachmentBody = z
  .strictObject({
    filename: z
      .string()
      .trim()
      .min(1)
      .max(ATTACHMENT_FILENAME_MAX)
      .regex(/^[^\\/\u0000-\u001f\u007f]+$/, 'must be a file name without slashes or control characters')
      .meta({ pattern: NOT_BLANK })
      .describe('The file name, such as `timesheet.pdf`.'),
    content_type: AttachmentContentType,
    content_base64: z
      .string()
      .min(1)
      .refine(isPaddedBase64, 'must be standard base64 (RFC 4648, with padding)')
      .meta({ pattern: BASE64 })
      .describe(`The file, base64-encoded; at most ${ATTACHMENT_MAX_BYTES.toLocaleString('en')} bytes decoded (400 above, 413 when the body itself is too large). Its bytes must be of \`content_type\` (a PDF starts with %PDF-, a PNG and a JPEG with their signatures).`),
    description: optionalText(500).optional().describe(`What the document is (BT-123), such as "Timesheet November". ${OPTIONAL_TEXT_RULE}`),
  })
  .meta({
    id: 'CreateInvoiceAttachmentBody',
    allOf: SIGNATURE_CONDITIONS,
    examples: [{ filename: 'timesheet.csv', content_type: 'text/csv', content_base64: 'ZGF5LGhvdXJzCjIwMjYtMTEtMDIsNy41Cg==', description: 'Timesheet November' }],
  });
export type CreateInvoiceAttachmentBody = z.infer<typeof CreateInvoiceAttachmentBody>;

export const InvoiceAttachmentPathParams = z.strictObject({
  id: z.string().max(100).describe('The invoice: prefixed public ID or the dashed UUID.'),
  att_id: z.string().max(100).describe('The `att_` ID of the attachment.'),
});

const tag = 'Invoices';
const service = 'billing';

export const createInvoiceAttachment = defineOperation({
  operationId: 'createInvoiceAttachment',
  summary: 'Attach a supporting document to a draft',
  description: `A supporting document (BG-24) such as a timesheet, embedded in the invoice's e-invoices. Drafts only (409 \`invalid_state\` once finalized); at most ${ATTACHMENTS_PER_INVOICE_MAX} per invoice (400 above).`,
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/attachments', scope: 'invoices:write', idempotency: 'required',
  params: z.strictObject({ id: InvoiceAttachmentPathParams.shape.id }),
  body: CreateInvoiceAttachmentBody,
  bodyLimitBytes: ATTACHMENT_BODY_MAX_BYTES,
  errors: [404, 409],
  responses: { 201: { description: 'The attachment as the invoice lists it.', schema: dataOf(InvoiceAttachment) } },
});

export const deleteInvoiceAttachment = defineOperation({
  operationId: 'deleteInvoiceAttachment',
  summary: 'Remove a supporting document from a draft',
  description: 'Drafts only (409 `invalid_state` once finalized).',
  tag, service, method: 'DELETE', path: '/api/v1/invoices/:id/attachments/:att_id', scope: 'invoices:write', idempotency: 'optional',
  params: InvoiceAttachmentPathParams,
  errors: [404, 409],
  responses: { 204: { description: 'Removed.' } },
});

export const invoiceAttachmentOperations = [createInvoiceAttachment, deleteInvoiceAttachment];

/** Headers of billing's internal answer with an attachment's bytes: the size and SHA-256 its invoice lists for it. */
export const ATTACHMENT_LISTED_SIZE_HEADER = 'x-attachment-size';
export const ATTACHMENT_LISTED_SHA256_HEADER = 'x-attachment-sha256';

/**
 * Billing's internal route with the bytes of one supporting document of a finalized invoice (the
 * documents service embeds them in the e-invoices); the gateway never forwards to it.
 */
export const invoiceAttachmentContentPath = (workspaceId: string, invoiceId: string, attachmentId: string): string =>
  `/internal/v1/workspaces/${encodeURIComponent(workspaceId)}/invoices/${encodeURIComponent(invoiceId)}/attachments/${encodeURIComponent(attachmentId)}/content`;
