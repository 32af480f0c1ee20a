import { ATTACHMENT_CONTENT_TYPES } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A supporting document's file; the invoice lists its metadata (InvoiceEntity `attachments`). */
export const InvoiceAttachmentEntity = defineEntity({
  name: 'InvoiceAttachment',
  tableName: 'invoice_attachments',
  properties: {
    id: p.uuid().primary(),
    invoiceId: p.uuid(),
    workspaceId: p.uuid(),
    /** Its place in the invoice's list, from 1; a removed one leaves a gap. */
    position: p.smallint(),
    filename: p.text(),
    contentType: p.enum(ATTACHMENT_CONTENT_TYPES),
    size: p.integer(),
    sha256: p.text(),
    description: p.text().nullable(),
    content: p.blob().$type<Buffer>().lazy(),
    createdAt: p.datetime(3),
  },
});
export type InvoiceAttachmentRow = InferEntity<typeof InvoiceAttachmentEntity>;
