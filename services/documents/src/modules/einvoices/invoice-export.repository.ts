import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentsDatabase } from '../../database.ts';
import { InvoiceExportEntity, type ExportKind, type InvoiceExportRow } from './invoice-export.entity.ts';

export const invoiceExportRepository = (em: EntityManager) => ({
  /** The stored export, bytes included, if this workspace's invoice has one of this kind. */
  findWithContent: (workspaceId: string, invoiceId: string, kind: ExportKind): Promise<InvoiceExportRow | null> =>
    em.findOne(InvoiceExportEntity, { invoiceId, kind, workspaceId }, { populate: ['content'] }),

  /** The kinds already stored for the invoice. */
  storedKinds: async (workspaceId: string, invoiceId: string): Promise<Set<ExportKind>> =>
    new Set((await em.find(InvoiceExportEntity, { invoiceId, workspaceId }, { fields: ['kind'] })).map((row) => row.kind)),

  /** Stores the export unless one of its kind is stored already (a concurrent writer won); reports whether it stored. */
  addIfAbsent: async (row: InvoiceExportRow): Promise<boolean> => {
    const stored = await sqlOf<DocumentsDatabase>(em)
      .insertInto('invoice_exports')
      .values(entityColumns(em, InvoiceExportEntity, row))
      .onConflict((oc) => oc.columns(['invoice_id', 'kind']).doNothing())
      .returning('invoice_id')
      .execute();
    return stored.length > 0;
  },
});

export type InvoiceExportRepository = ReturnType<typeof invoiceExportRepository>;
