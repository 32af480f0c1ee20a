import { z } from 'zod';
import { dataOf, NOT_BLANK, OPTIONAL_TEXT_RULE, optionalText } from '../common.ts';
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
    filename: z.string().describe('As sent (BT-125 filename).'),
    content_type: AttachmentContentType,
    size: z.int().describe('Bytes of the file.'),
    sha256: z.string().describe('SHA-256 (hex) of the file.'),
    description: z.string().nullable().describe('BT-123.'),
  })
  .meta({ id: 'InvoiceAttachment' });
export type InvoiceAttachment = z.infer<typeof InvoiceAttachment>;

const BASE64 = '^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$';

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
      .regex(new RegExp(BASE64), 'must be standard base64 (RFC 4648, with padding)')
      .describe(`The file, base64-encoded; at most ${ATTACHMENT_MAX_BYTES.toLocaleString('en')} bytes decoded (400 above, 413 when the body itself is too large). Its bytes must be of \`content_type\` (a PDF starts with %PDF-, a PNG and a JPEG with their signatures).`),
    description: optionalText(500).optional().describe(`What the document is (BT-123), such as "Timesheet November". ${OPTIONAL_TEXT_RULE}`),
  })
  .meta({
    id: 'CreateInvoiceAttachmentBody',
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
