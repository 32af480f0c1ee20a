import { containsPattern, type KeysetPosition } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { InvoiceEntity, InvoiceLineEntity, type InvoiceLineRow, type InvoiceRow, type StoredStatus } from './invoice.entity.ts';
import type { InvoiceStatus } from '@invoicing/contracts';

export interface InvoiceFilter {
  customerId?: string | undefined;
  status?: InvoiceStatus | undefined;
  q?: string | undefined;
  createdFrom?: Date | undefined;
  createdUntil?: Date | undefined;
  /** Today in the workspace's time zone: it tells `open` from `overdue`. */
  today: string;
}

const statusCondition = (status: InvoiceStatus, today: string) => {
  if (status === 'overdue') return { status: 'open' as StoredStatus, dueDate: { $lt: today } };
  if (status === 'open') return { status: 'open' as StoredStatus, $or: [{ dueDate: null }, { dueDate: { $gte: today } }] };
  return { status };
};

export const invoiceRepository = (em: EntityManager) => ({
  findInWorkspace: (workspaceId: string, id: string): Promise<InvoiceRow | null> => em.findOne(InvoiceEntity, { id, workspaceId }),

  findForUpdate: (tx: EntityManager, workspaceId: string, id: string): Promise<InvoiceRow | null> =>
    tx.findOne(InvoiceEntity, { id, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE }),

  linesOf: (db: EntityManager, invoiceId: string): Promise<InvoiceLineRow[]> =>
    db.find(InvoiceLineEntity, { invoiceId }, { orderBy: { position: 'asc' } }),

  /** The lines of many invoices in one query, by invoice. */
  linesOfEach: async (invoiceIds: readonly string[]): Promise<Map<string, InvoiceLineRow[]>> => {
    const byInvoice = new Map<string, InvoiceLineRow[]>(invoiceIds.map((id) => [id, []]));
    if (invoiceIds.length === 0) return byInvoice;
    const rows = await em.find(InvoiceLineEntity, { invoiceId: { $in: [...invoiceIds] } }, { orderBy: { invoiceId: 'asc', position: 'asc' } });
    for (const row of rows) byInvoice.get(row.invoiceId)?.push(row);
    return byInvoice;
  },

  /** `limit + 1` rows, newest first, after `position`; the extra row tells whether a next page exists. */
  pageNewestFirst: (workspaceId: string, filter: InvoiceFilter, position: KeysetPosition | undefined, limit: number): Promise<InvoiceRow[]> => {
    const qb = em.createQueryBuilder(InvoiceEntity).select('*').where({ workspaceId });
    if (filter.customerId !== undefined) qb.andWhere({ customerId: filter.customerId });
    if (filter.status !== undefined) qb.andWhere(statusCondition(filter.status, filter.today));
    if (filter.q !== undefined) {
      const pattern = containsPattern(filter.q);
      qb.andWhere({ $or: [{ number: { $ilike: pattern } }, { customerName: { $ilike: pattern } }, { notes: { $ilike: pattern } }] });
    }
    if (filter.createdFrom) qb.andWhere({ createdAt: { $gte: filter.createdFrom } });
    if (filter.createdUntil) qb.andWhere({ createdAt: { $lte: filter.createdUntil } });
    // A row comparison: PostgreSQL turns it into a bound on the (workspace_id, created_at desc, id desc) index.
    if (position) qb.andWhere('(created_at, id) < (?, ?)', [position.created, position.id]);
    return qb.orderBy({ createdAt: 'desc', id: 'desc' }).limit(limit + 1).getResultList();
  },

  replaceLines: async (tx: EntityManager, invoiceId: string, lines: readonly InvoiceLineRow[]): Promise<void> => {
    await tx.nativeDelete(InvoiceLineEntity, { invoiceId });
    for (const line of lines) tx.create(InvoiceLineEntity, line);
  },

  dropCatalogLines: async (tx: EntityManager, invoiceId: string): Promise<void> => {
    await tx.nativeDelete(InvoiceLineEntity, { invoiceId, priceId: { $ne: null } });
  },

  /** Removes a draft; its lines and timeline go with it (foreign keys cascade). */
  remove: async (tx: EntityManager, row: InvoiceRow): Promise<void> => {
    await tx.nativeDelete(InvoiceEntity, { id: row.id });
  },
});

export type InvoiceRepository = ReturnType<typeof invoiceRepository>;
