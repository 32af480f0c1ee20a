import type { EntityManager } from '@mikro-orm/postgresql';
import { InvoicePdfEntity, type InvoicePdfRow } from './invoice-pdf.entity.ts';

export const invoicePdfRepository = (em: EntityManager) => ({
  /** The stored PDF, bytes included, if this workspace's invoice has one. */
  findWithContent: (workspaceId: string, invoiceId: string): Promise<InvoicePdfRow | null> =>
    em.findOne(InvoicePdfEntity, { invoiceId, workspaceId }, { populate: ['content'] }),

  /** The stored PDF without its bytes: enough to show its digest. */
  findSummary: (workspaceId: string, invoiceId: string): Promise<InvoicePdfRow | null> => em.findOne(InvoicePdfEntity, { invoiceId, workspaceId }),

  /** Stores the PDF unless one is stored already for the invoice (a concurrent render won); reports whether it stored. */
  addIfAbsent: async (row: InvoicePdfRow): Promise<boolean> => {
    const result = await em.createQueryBuilder(InvoicePdfEntity).insert(row).onConflict('invoiceId').ignore().execute('run');
    return result.affectedRows > 0;
  },
});

export type InvoicePdfRepository = ReturnType<typeof invoicePdfRepository>;
