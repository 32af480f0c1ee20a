import type { EventEnvelope, InvoiceStatus } from '@invoicing/contracts';
import { containsPattern, type KeysetPosition, type TraceCarrier } from '@invoicing/service-kit';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { columnOf, columnRowsJson } from '../../shared/column-rows.ts';
import type { Series } from '../numbering/numbering.repository.ts';
import { TimelineEntryEntity, type TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { InvoiceEntity, InvoiceLineEntity, type InvoiceLineRow, type InvoiceRow, type StoredStatus } from './invoice.entity.ts';

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

const S = `"${BILLING_SCHEMA}"`;

/** An event to add to the outbox, with the trace context of the request it reports (null with tracing off). */
export interface OutboxEntry {
  envelope: EventEnvelope;
  traceContext: TraceCarrier | null;
}

const outboxJson = (entries: readonly OutboxEntry[]): string =>
  JSON.stringify(entries.map(({ envelope, traceContext }) => ({ id: envelope.id, subject: envelope.type, envelope, trace_context: traceContext })));

// Lock order is drafts (by id) then the series' counter row, for every finalize of every replica, so two never wait on each other in a cycle.
const LOCK_DRAFTS_AS_READ_SQL = `
  select i.id from ${S}.invoices i
    join jsonb_to_recordset(?::jsonb) as d(id uuid, read_version timestamptz) on d.id = i.id and d.read_version = i.updated_at
   where i.workspace_id = ? and i.status = 'draft'
   order by i.id
     for update of i`;

/** The invoice properties finalization sets. */
export const FINALIZED_PROPERTIES = [
  'status',
  'customerName',
  'customerSnapshot',
  'businessSnapshot',
  'finalizedAt',
  'publicUrlToken',
  'amountDue',
  'buyerReference',
  'deliveryDate',
  'snapshotVersion',
  'number',
  'numberFormat',
  'numberPeriod',
  'numberSequence',
  'snapshotSha256',
  'chainSha256',
  'updatedAt',
] as const satisfies readonly (keyof InvoiceRow)[];

let writeFinalizedSql: string | undefined;
const writeFinalizedStatement = (em: EntityManager): string => {
  if (writeFinalizedSql) return writeFinalizedSql;
  const columns = FINALIZED_PROPERTIES.map((property) => columnOf(em, InvoiceEntity, property));
  // One round trip while the counter row is locked: invoices, timeline, outbox and the series' chain head.
  writeFinalizedSql = `
    with changed as (
           update ${S}.invoices i set (${columns.join(', ')}) = (${columns.map((column) => `r.${column}`).join(', ')})
             from jsonb_populate_recordset(null::${S}.invoices, ?::jsonb) r
            where i.id = r.id and i.workspace_id = r.workspace_id
           returning i.id),
         timeline as (insert into ${S}.invoice_timeline select * from jsonb_populate_recordset(null::${S}.invoice_timeline, ?::jsonb)),
         outbox as (insert into ${S}.outbox (id, subject, envelope, trace_context)
           select e.id, e.subject, e.envelope, e.trace_context from jsonb_to_recordset(?::jsonb) as e(id uuid, subject text, envelope jsonb, trace_context jsonb)),
         series as (update ${S}.number_series set last_chain_sha256 = ? where workspace_id = ? and format = ? and period = ?)
    select count(*)::int as changed from changed`;
  return writeFinalizedSql;
};

/** What one finalize transaction writes: the invoices as finalized, their entries and events, and the series' new chain head. */
export interface FinalizedBatch {
  invoices: readonly InvoiceRow[];
  timeline: readonly TimelineEntryRow[];
  events: readonly OutboxEntry[];
  series: Series;
  chainHead: string;
}

export const invoiceRepository = (em: EntityManager) => ({
  /**
   * Locks, inside `tx`, those of `drafts` that are still the drafts that were read (status draft,
   * the same `updated_at`); the IDs locked. Any other was finalized or changed meanwhile.
   */
  lockDraftsAsRead: async (tx: EntityManager, workspaceId: string, drafts: readonly { id: string; readVersion: Date }[]): Promise<Set<string>> => {
    const rows = await tx.execute<{ id: string }[]>(LOCK_DRAFTS_AS_READ_SQL, [JSON.stringify(drafts.map((draft) => ({ id: draft.id, read_version: draft.readVersion }))), workspaceId]);
    return new Set(rows.map((row) => row.id));
  },

  /** Writes a batch of finalized invoices in one statement inside `tx`; how many invoices it changed. */
  writeFinalized: async (tx: EntityManager, batch: FinalizedBatch): Promise<number> => {
    const [row] = await tx.execute<{ changed: number }[]>(writeFinalizedStatement(tx), [
      columnRowsJson(tx, InvoiceEntity, batch.invoices),
      columnRowsJson(tx, TimelineEntryEntity, batch.timeline),
      outboxJson(batch.events),
      batch.chainHead,
      batch.series.workspaceId,
      batch.series.format,
      batch.series.period,
    ]);
    return row?.changed ?? 0;
  },

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
