import { createHash } from 'node:crypto';
import {
  ATTACHMENT_CONTENT_TYPES,
  ATTACHMENT_MAX_BYTES,
  ATTACHMENTS_PER_INVOICE_MAX,
  toPublicId,
  type CreateInvoiceAttachmentBody,
  type InvoiceAttachment,
} from '@invoicing/contracts';
import { invalidRequest } from '@invoicing/service-kit/app-error';
import { newId } from '@invoicing/service-kit/ids';
import type { InvoiceAttachmentRow } from './attachment.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

type AttachmentContentType = (typeof ATTACHMENT_CONTENT_TYPES)[number];

const ZIP = Buffer.from('PK\x03\x04', 'latin1');

/** The bytes a file of each type starts with (a PDF may have a few bytes of junk before `%PDF-`, which readers accept but EN 16931 validators need not). */
const SIGNATURES: Record<Exclude<AttachmentContentType, 'text/csv'>, { bytes: Buffer; name: string }> = {
  'application/pdf': { bytes: Buffer.from('%PDF-', 'latin1'), name: 'a PDF starts with %PDF-' },
  'image/png': { bytes: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), name: 'a PNG starts with its 8-byte signature' },
  'image/jpeg': { bytes: Buffer.from([0xff, 0xd8, 0xff]), name: 'a JPEG starts with FF D8 FF' },
  // Both are ZIP packages (Office Open XML, OpenDocument).
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { bytes: ZIP, name: 'an XLSX is a ZIP file (PK\\x03\\x04)' },
  'application/vnd.oasis.opendocument.spreadsheet': { bytes: ZIP, name: 'an ODS is a ZIP file (PK\\x03\\x04)' },
};

const contentIssue = (message: string) => [{ path: 'content_base64', message }];

/**
 * The file the body carries, decoded strictly: the contract checked the alphabet and padding; what
 * decodes must encode back to the very same text (no non-zero bits after the last byte), so one
 * file has one base64 form, and it must not be larger than the limit.
 */
export const decodeContent = (contentBase64: string): Buffer => {
  // Checked before decoding: a body this large is refused without allocating its bytes.
  const padding = contentBase64.endsWith('==') ? 2 : contentBase64.endsWith('=') ? 1 : 0;
  const size = (contentBase64.length / 4) * 3 - padding;
  if (size > ATTACHMENT_MAX_BYTES) {
    throw invalidRequest(`A supporting document may have at most ${ATTACHMENT_MAX_BYTES} bytes; this one has ${size}.`, contentIssue(`decodes to ${size} bytes, more than ${ATTACHMENT_MAX_BYTES}`));
  }
  const bytes = Buffer.from(contentBase64, 'base64');
  if (bytes.length !== size || bytes.toString('base64') !== contentBase64) {
    throw invalidRequest('content_base64 is not canonical base64.', contentIssue('must be standard base64 (RFC 4648) whose last characters carry no extra bits'));
  }
  if (bytes.length === 0) throw invalidRequest('A supporting document cannot be empty.', contentIssue('decodes to no bytes'));
  return bytes;
};

const isUtf8Text = (bytes: Buffer): boolean => {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/** Refuses a file whose bytes are not of the type it is declared as (a renamed executable, a PDF sent as PNG). */
export const assertContentMatchesType = (bytes: Buffer, contentType: AttachmentContentType): void => {
  if (contentType === 'text/csv') {
    if (!isUtf8Text(bytes)) throw invalidRequest('A text/csv document must be UTF-8 text.', contentIssue('is not UTF-8 text without NUL bytes, as text/csv must be'));
    return;
  }
  const signature = SIGNATURES[contentType];
  if (!bytes.subarray(0, signature.bytes.length).equals(signature.bytes)) {
    throw invalidRequest(`The file is not of content_type ${contentType}: ${signature.name}.`, contentIssue(`does not start as ${contentType} does (${signature.name})`));
  }
};

/** Refuses one more document on an invoice that lists the most it may. */
export const assertRoomForAnother = (listed: readonly InvoiceAttachment[]): void => {
  if (listed.length >= ATTACHMENTS_PER_INVOICE_MAX) {
    throw invalidRequest(`An invoice takes at most ${ATTACHMENTS_PER_INVOICE_MAX} supporting documents; remove one first.`, [
      { path: 'content_base64', message: `the invoice has ${listed.length} supporting documents already` },
    ]);
  }
};

/** The new file's row, placed after the invoice's last one. */
export const newAttachment = (
  invoice: { id: string; workspaceId: string },
  body: CreateInvoiceAttachmentBody,
  bytes: Buffer,
  context: { lastPosition: number; now: Date },
): InvoiceAttachmentRow => ({
  id: newId(),
  invoiceId: invoice.id,
  workspaceId: invoice.workspaceId,
  position: context.lastPosition + 1,
  filename: body.filename,
  contentType: body.content_type,
  size: bytes.length,
  sha256: createHash('sha256').update(bytes).digest('hex'),
  description: body.description ?? null,
  content: bytes,
  createdAt: context.now,
});

/** How the invoice lists a file: what its reads show, and what finalization freezes. */
export const attachmentListing = (row: InvoiceAttachmentRow): InvoiceAttachment => ({
  id: toPublicId('invoiceAttachment', row.id),
  object: 'invoice_attachment',
  livemode: livemodeOf(row.workspaceId),
  filename: row.filename,
  content_type: row.contentType,
  size: row.size,
  sha256: row.sha256,
  description: row.description ?? null,
});
