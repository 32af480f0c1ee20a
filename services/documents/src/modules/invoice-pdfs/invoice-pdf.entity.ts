import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** A finalized invoice's PDF as rendered once, with the digest served as its ETag. */
export const InvoicePdfEntity = defineEntity({
  name: 'InvoicePdf',
  tableName: 'invoice_pdfs',
  properties: {
    invoiceId: p.uuid().primary(),
    workspaceId: p.uuid(),
    number: p.text(),
    templateVersion: p.text(),
    sha256: p.string().length(64),
    byteSize: p.integer(),
    content: p.blob().$type<Buffer>().lazy(),
    renderedAt: p.datetime(3),
  },
});
export type InvoicePdfRow = InferEntity<typeof InvoicePdfEntity>;
