import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/** What is stored for a finalized invoice besides its PDF: each XML syntax and profile, and the Factur-X PDF. */
export const EXPORT_KINDS = ['ubl-en16931', 'ubl-xrechnung', 'cii-en16931', 'cii-xrechnung', 'facturx'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** One export of a finalized invoice as written once, with the digest served as its ETag. */
export const InvoiceExportEntity = defineEntity({
  name: 'InvoiceExport',
  tableName: 'invoice_exports',
  properties: {
    invoiceId: p.uuid().primary(),
    kind: p.string().$type<ExportKind>().primary(),
    workspaceId: p.uuid(),
    number: p.text(),
    generatorVersion: p.text(),
    sha256: p.string().length(64),
    byteSize: p.integer(),
    content: p.blob().$type<Buffer>().lazy(),
    renderedAt: p.datetime(3),
  },
});
export type InvoiceExportRow = InferEntity<typeof InvoiceExportEntity>;
