import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { DocumentsDatabase } from '../../database.ts';
import { InvoicePdfEntity, type InvoicePdfRow } from './invoice-pdf.entity.ts';

export const invoicePdfRepository = (em: EntityManager) => ({
  /** The stored PDF, bytes included, if this workspace's invoice has one. */
  findWithContent: (workspaceId: string, invoiceId: string): Promise<InvoicePdfRow | null> =>
    em.findOne(InvoicePdfEntity, { invoiceId, workspaceId }, { populate: ['content'] }),

  /** The stored PDF without its bytes: enough to show its digest. */
  findSummary: (workspaceId: string, invoiceId: string): Promise<InvoicePdfRow | null> => em.findOne(InvoicePdfEntity, { invoiceId, workspaceId }),

  /** Stores the PDF unless one is stored already for the invoice (a concurrent render won); reports whether it stored. */
  addIfAbsent: async (row: InvoicePdfRow): Promise<boolean> => {
    const stored = await sqlOf<DocumentsDatabase>(em)
      .insertInto('invoice_pdfs')
      .values(entityColumns(em, InvoicePdfEntity, row))
      .onConflict((oc) => oc.column('invoice_id').doNothing())
      .returning('invoice_id')
      .execute();
    return stored.length > 0;
  },
});

export type InvoicePdfRepository = ReturnType<typeof invoicePdfRepository>;
