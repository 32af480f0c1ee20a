import type { EventEnvelope, InvoiceStatus } from '@invoicing/contracts';
import { captureTraceContext, containsPattern, newestFirstPage, type KeysetPosition, type TraceCarrier } from '@invoicing/service-kit';
import type { EntityDictionary } from '@mikro-orm/core';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { columnOf, columnRowsJson } from '../../shared/column-rows.ts';
import { AccountEntity, type AccountRow } from '../account/account.entity.ts';
import type { Series } from '../numbering/numbering.repository.ts';
import { TimelineEntryEntity, type TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { InvoiceEntity, InvoiceLineEntity, type InvoiceLineRow, type InvoiceRow, type StoredStatus } from './invoice.entity.ts';

/**
 * A page of the list, keyset-paged: a row comparison on (created_at, id) after the last row shown,
 * which PostgreSQL turns into a bound on an index that leads with the workspace and the filter's
 * equality columns and ends in (created_at desc, id desc) (invoices_newest_first,
 * invoices_of_customer_newest_first, invoices_by_status_newest_first), so a page 50,000 rows deep
 * reads as little as the first one.
 */
const pageNewestFirstQuery = (em: EntityManager, workspaceId: string, filter: InvoiceFilter, position: KeysetPosition | undefined, limit: number) => {
  const qb = em.createQueryBuilder(InvoiceEntity).select('*').where({ workspaceId });
  if (filter.customerId !== undefined) qb.andWhere({ customerId: filter.customerId });
  if (filter.status !== undefined) qb.andWhere(statusCondition(filter.status, filter.today));
  if (filter.q !== undefined) {
    const pattern = containsPattern(filter.q);
    qb.andWhere({ $or: [{ number: { $ilike: pattern } }, { customerName: { $ilike: pattern } }, { notes: { $ilike: pattern } }] });
  }
  if (filter.createdFrom) qb.andWhere({ createdAt: { $gte: filter.createdFrom } });
  if (filter.createdUntil) qb.andWhere({ createdAt: { $lte: filter.createdUntil } });
  return newestFirstPage(qb, position, limit, { property: 'createdAt', column: 'created_at' });
};

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

// The request's trace context goes with each row, so the relay publishes it in that trace.
const fromThisRequest = (events: readonly EventEnvelope[]): OutboxEntry[] => {
  const traceContext = captureTraceContext() ?? null;
  return events.map((envelope) => ({ envelope, traceContext }));
};

/*
 * The hot paths read what a use case needs in one statement and write a change (the invoice, its
 * lines, its timeline entry and its events) in one statement of data-modifying CTEs, which
 * PostgreSQL applies atomically: each round trip costs more than the work it carries. Lines and
 * timeline entries reference their invoice through deferred foreign keys, so the order of the
 * CTEs does not matter.
 */

const loadSql = (where: string) => `
  select i.*,
         coalesce((select json_agg(l order by l.position) from ${S}.invoice_lines l where l.invoice_id = i.id), '[]'::json) as lines_json,
         (select to_jsonb(a) from ${S}.accounts a where a.workspace_id = i.workspace_id) as account_json
    from ${S}.invoices i
   where ${where}`;
const LOAD_SQL = loadSql('i.id = ? and i.workspace_id = ?');
const LOAD_BY_PUBLIC_TOKEN_SQL = loadSql('i.public_url_token = ?');

const INSERT_DRAFT_SQL = `
  with invoice as (insert into ${S}.invoices select * from jsonb_populate_record(null::${S}.invoices, ?::jsonb)),
       lines as (insert into ${S}.invoice_lines select * from jsonb_populate_recordset(null::${S}.invoice_lines, ?::jsonb)),
       timeline as (insert into ${S}.invoice_timeline select * from jsonb_populate_recordset(null::${S}.invoice_timeline, ?::jsonb))
  insert into ${S}.outbox (id, subject, envelope, trace_context) select e.id, e.subject, e.envelope, e.trace_context from jsonb_to_recordset(?::jsonb) as e(id uuid, subject text, envelope jsonb, trace_context jsonb)`;

/** An invoice with its lines and its workspace's settings, read in one statement. */
export interface LoadedInvoice {
  invoice: InvoiceRow;
  lines: InvoiceLineRow[];
  /** Null when the workspace never saved settings. */
  account: AccountRow | null;
}

type LoadedRaw = EntityDictionary<InvoiceRow> & { lines_json: EntityDictionary<InvoiceLineRow>[]; account_json: EntityDictionary<AccountRow> | null };

/** A change of some columns of one open (or finalized) invoice, with the timeline entries and events that report it. */
export interface InvoiceChange {
  invoice: InvoiceRow;
  /** The properties written; every other column keeps its value. */
  properties: readonly (keyof InvoiceRow)[];
  /** Write only while the invoice still has this status; otherwise nothing at all is written. */
  whileStatus: StoredStatus;
  timeline: readonly TimelineEntryRow[];
  events: readonly EventEnvelope[];
}

const changeSql = new Map<string, string>();
const changeStatement = (em: EntityManager, properties: readonly (keyof InvoiceRow)[]): string => {
  const columns = properties.map((property) => columnOf(em, InvoiceEntity, String(property)));
  const key = columns.join(',');
  let sql = changeSql.get(key);
  if (!sql) {
    sql = `
      with changed as (
             update ${S}.invoices i set (${columns.join(', ')}) = (${columns.map((column) => `r.${column}`).join(', ')})
               from jsonb_populate_record(null::${S}.invoices, ?::jsonb) r
              where i.id = r.id and i.workspace_id = r.workspace_id and i.status = ?
             returning i.id),
           timeline as (insert into ${S}.invoice_timeline
             select t.* from jsonb_populate_recordset(null::${S}.invoice_timeline, ?::jsonb) t where exists (select 1 from changed)),
           outbox as (insert into ${S}.outbox (id, subject, envelope, trace_context)
             select e.id, e.subject, e.envelope, e.trace_context from jsonb_to_recordset(?::jsonb) as e(id uuid, subject text, envelope jsonb, trace_context jsonb) where exists (select 1 from changed))
      select count(*)::int as changed from changed`;
    changeSql.set(key, sql);
  }
  return sql;
};

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

export const invoiceRepository = (em: EntityManager) => {
  const loaded = (raw: LoadedRaw | undefined): LoadedInvoice | null => {
    if (!raw) return null;
    const { lines_json: lines, account_json: account, ...invoice } = raw;
    return {
      invoice: em.map(InvoiceEntity, invoice as EntityDictionary<InvoiceRow>),
      lines: lines.map((line) => em.map(InvoiceLineEntity, line)),
      account: account ? em.map(AccountEntity, account) : null,
    };
  };

  return {
    /** The invoice with its lines and its workspace's settings, in one statement; null when the workspace has no such invoice. */
    findWithLinesAndSettings: async (workspaceId: string, id: string): Promise<LoadedInvoice | null> =>
      loaded((await em.execute<LoadedRaw[]>(LOAD_SQL, [id, workspaceId]))[0]),

    /** The invoice a public link names, whatever its workspace: the link itself is the credential. */
    findByPublicToken: async (token: string): Promise<LoadedInvoice | null> => loaded((await em.execute<LoadedRaw[]>(LOAD_BY_PUBLIC_TOKEN_SQL, [token]))[0]),

    /** A new draft with its lines, its `created` entry and its event: one statement. */
    insertDraft: async (invoice: InvoiceRow, lines: readonly InvoiceLineRow[], entry: TimelineEntryRow, event: EventEnvelope): Promise<void> => {
      await em.execute(INSERT_DRAFT_SQL, [
        columnRowsJson(em, InvoiceEntity, invoice),
        columnRowsJson(em, InvoiceLineEntity, lines),
        columnRowsJson(em, TimelineEntryEntity, [entry]),
        outboxJson(fromThisRequest([event])),
      ]);
    },

    /**
     * Applies a change (a payment, a void, a new public link) in one statement, only while the
     * invoice still has `whileStatus`; false when it no longer had it, and nothing was written.
     */
    changeWhileStatus: async (change: InvoiceChange): Promise<boolean> => {
      const [row] = await em.execute<{ changed: number }[]>(changeStatement(em, change.properties), [
        columnRowsJson(em, InvoiceEntity, change.invoice),
        change.whileStatus,
        columnRowsJson(em, TimelineEntryEntity, change.timeline),
        outboxJson(fromThisRequest(change.events)),
      ]);
      return (row?.changed ?? 0) > 0;
    },

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
    pageNewestFirst: (workspaceId: string, filter: InvoiceFilter, position: KeysetPosition | undefined, limit: number): Promise<InvoiceRow[]> =>
      pageNewestFirstQuery(em, workspaceId, filter, position, limit).getResultList(),

    /** The SQL of that page, parameters inlined: what `explain` is run on. */
    pageNewestFirstSql: (workspaceId: string, filter: InvoiceFilter, position: KeysetPosition | undefined, limit: number): string =>
      pageNewestFirstQuery(em, workspaceId, filter, position, limit).getFormattedQuery(),

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
  };
};

export type InvoiceRepository = ReturnType<typeof invoiceRepository>;
