import type { EventEnvelope, InvoiceStatus } from '@invoicing/contracts';
import { captureTraceContext, containsPattern, newestFirstPage, outboxColumns, type KeysetPosition, type OutboxEntry } from '@invoicing/service-kit';
import { columnsOf, entityColumns, entityRow, entityRows, sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql, type QueryCreator } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
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
  return newestFirstPage(qb, position, limit, 'createdAt');
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

// The request's trace context goes with the row, so the relay publishes it in that trace.
const fromThisRequest = (envelope: EventEnvelope): OutboxEntry => ({ envelope, traceContext: captureTraceContext() ?? null });

/*
 * (A CTE is never named as a table: Kysely leaves a name that a CTE has unqualified by the schema.)
 *
 * The hot paths read what a use case needs in one statement and write a change (the invoice, its
 * lines, its timeline entry and its events) in one statement of data-modifying CTEs, which
 * PostgreSQL applies atomically: each round trip costs more than the work it carries. Lines and
 * timeline entries reference their invoice through deferred foreign keys, so the order of the
 * CTEs does not matter.
 */

/** The invoice, its lines (a JSON array) and its workspace's settings (a JSON row, or null). */
const loadQuery = (em: EntityManager) =>
  sqlOf<BillingDatabase>(em)
    .selectFrom('invoices as i')
    .selectAll('i')
    .select((eb) => [
      eb
        .selectFrom('invoice_lines as l')
        .select((line) => line.fn.coalesce(line.fn.jsonAgg('l').orderBy('l.position'), sql<[]>`'[]'::json`).as('lines'))
        .whereRef('l.invoice_id', '=', 'i.id')
        .as('lines'),
      eb
        .selectFrom('accounts as a')
        .select((account) => account.fn.toJson('a').as('account'))
        .whereRef('a.workspace_id', '=', 'i.workspace_id')
        .as('account'),
    ]);

/** An invoice with its lines and its workspace's settings, read in one statement. */
export interface LoadedInvoice {
  invoice: InvoiceRow;
  lines: InvoiceLineRow[];
  /** Null when the workspace never saved settings. */
  account: AccountRow | null;
}

/** A change of some columns of one open (or finalized) invoice, with the timeline entry and the event that report it. */
export interface InvoiceChange {
  invoice: InvoiceRow;
  /** The properties written; every other column keeps its value. */
  properties: readonly (keyof InvoiceRow)[];
  /** Write only while the invoice still has this status; otherwise nothing at all is written. */
  whileStatus: StoredStatus;
  entry: TimelineEntryRow;
  event: EventEnvelope;
}

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

/** What one finalize transaction writes: the invoices as finalized, their entries and events, and the series' new chain head. */
export interface FinalizedBatch {
  invoices: readonly InvoiceRow[];
  timeline: readonly TimelineEntryRow[];
  events: readonly OutboxEntry[];
  series: Series;
  chainHead: string;
}

export type { OutboxEntry };

/**
 * `insert into <table> (<row's columns>) select <row's values> from <cte>`: the row is written once
 * for each row of the CTE, so with a change's CTE (one row or none) only when the change was made.
 */
const insertOnlyWith = <DB>(db: QueryCreator<DB>, table: 'invoice_timeline' | 'outbox', cte: 'changed', row: Record<string, unknown>) => {
  const columns = Object.keys(row);
  return (db as unknown as QueryCreator<BillingDatabase>)
    .insertInto(table)
    .columns(columns as never)
    .expression((eb) => eb.selectFrom(cte as never).select(columns.map((column) => eb.val(row[column]).as(column)) as never) as never);
};

export const invoiceRepository = (em: EntityManager) => {
  type Loaded = Awaited<ReturnType<ReturnType<typeof loadQuery>['executeTakeFirst']>>;
  const loaded = (raw: Loaded): LoadedInvoice | null => {
    if (!raw) return null;
    const { lines, account, ...invoice } = raw;
    return {
      invoice: entityRow(em, InvoiceEntity, invoice)!,
      lines: entityRows(em, InvoiceLineEntity, lines ?? []),
      account: entityRow(em, AccountEntity, account ?? undefined) ?? null,
    };
  };
  const outboxRows = (entries: readonly OutboxEntry[]) => entries.map((entry) => outboxColumns(em, entry));

  return {
    /** The invoice with its lines and its workspace's settings, in one statement; null when the workspace has no such invoice. */
    findWithLinesAndSettings: async (workspaceId: string, id: string): Promise<LoadedInvoice | null> =>
      loaded(await loadQuery(em).where('i.id', '=', id).where('i.workspace_id', '=', workspaceId).executeTakeFirst()),

    /** The invoice a public link names, whatever its workspace: the link itself is the credential. */
    findByPublicToken: async (token: string): Promise<LoadedInvoice | null> => loaded(await loadQuery(em).where('i.public_url_token', '=', token).executeTakeFirst()),

    /** A new draft with its lines (at least one: the contract's `items` asks for one), its `created` entry and its event: one statement. */
    insertDraft: async (invoice: InvoiceRow, lines: readonly InvoiceLineRow[], entry: TimelineEntryRow, event: EventEnvelope): Promise<void> => {
      await sqlOf<BillingDatabase>(em)
        .with('new_invoice', (db) => db.insertInto('invoices').values(entityColumns(em, InvoiceEntity, invoice)))
        .with('new_lines', (db) => db.insertInto('invoice_lines').values(lines.map((line) => entityColumns(em, InvoiceLineEntity, line))))
        .with('new_entries', (db) => db.insertInto('invoice_timeline').values(entityColumns(em, TimelineEntryEntity, entry)))
        .insertInto('outbox')
        .values(outboxRows([fromThisRequest(event)]))
        .execute();
    },

    /**
     * Applies a change (a payment, a void, a new public link) in one statement, only while the
     * invoice still has `whileStatus`; false when it no longer had it, and nothing was written.
     */
    changeWhileStatus: async ({ invoice, properties, whileStatus, entry, event }: InvoiceChange): Promise<boolean> => {
      const changes = entityColumns(em, InvoiceEntity, Object.fromEntries(properties.map((property) => [property, invoice[property] ?? null])));
      const { changed } = await sqlOf<BillingDatabase>(em)
        .with('changed', (db) =>
          db.updateTable('invoices').set(changes).where('id', '=', invoice.id).where('workspace_id', '=', invoice.workspaceId).where('status', '=', whileStatus).returning('id'),
        )
        // Selected from `changed` (the invoice by its id, or no row), the entry and the event are
        // written only with the change.
        .with('new_entries', (db) => insertOnlyWith(db, 'invoice_timeline', 'changed', entityColumns(em, TimelineEntryEntity, entry)))
        .with('new_events', (db) => insertOnlyWith(db, 'outbox', 'changed', outboxColumns(em, fromThisRequest(event))))
        .selectFrom('changed')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('changed'))
        .executeTakeFirstOrThrow();
      return changed > 0;
    },

    /**
     * Locks, inside `tx`, those of `drafts` that are still the drafts that were read (status draft,
     * the same `updated_at`); the IDs locked. Any other was finalized or changed meanwhile.
     */
    lockDraftsAsRead: async (tx: EntityManager, workspaceId: string, drafts: readonly { id: string; readVersion: Date }[]): Promise<Set<string>> => {
      if (drafts.length === 0) return new Set();
      const rows = await sqlOf<BillingDatabase>(tx)
        .selectFrom('invoices as i')
        .select('i.id')
        .where('i.workspace_id', '=', workspaceId)
        .where('i.status', '=', 'draft')
        .where((eb) => eb(eb.refTuple('i.id', 'i.updated_at'), 'in', drafts.map((draft) => eb.tuple(draft.id, draft.readVersion))))
        // Lock order is drafts (by id) then the series' counter row, for every finalize of every
        // replica, so two never wait on each other in a cycle.
        .orderBy('i.id')
        .forUpdate('i')
        .execute();
      return new Set(rows.map((row) => row.id));
    },

    /**
     * Writes a batch of finalized invoices in one statement inside `tx`, while the series' counter
     * row is locked: invoices, timeline, outbox and the series' chain head; how many invoices it changed.
     */
    writeFinalized: async (tx: EntityManager, { invoices, timeline, events, series, chainHead }: FinalizedBatch): Promise<number> => {
      const { changed } = await sqlOf<BillingDatabase>(tx)
        // Each invoice gets its own values in one statement: Kysely writes that as an insert whose
        // every row conflicts, since each one exists and is locked by this transaction
        // (lockDraftsAsRead), so it only ever updates, and only FINALIZED_PROPERTIES.
        .with('changed', (db) =>
          db
            .insertInto('invoices')
            .values(invoices.map((invoice) => entityColumns(tx, InvoiceEntity, invoice)))
            .onConflict((oc) =>
              oc
                .column('id')
                .doUpdateSet((eb) => Object.fromEntries(columnsOf(tx, InvoiceEntity, FINALIZED_PROPERTIES).map((column) => [column, eb.ref(`excluded.${column}` as never)])))
                .whereRef('invoices.workspace_id', '=', 'excluded.workspace_id'),
            )
            .returning('id'),
        )
        .with('new_entries', (db) => db.insertInto('invoice_timeline').values(timeline.map((entry) => entityColumns(tx, TimelineEntryEntity, entry))))
        .with('new_events', (db) => db.insertInto('outbox').values(events.map((entry) => outboxColumns(tx, entry))))
        .with('chain_head', (db) =>
          db
            .updateTable('number_series')
            .set({ last_chain_sha256: chainHead })
            .where('workspace_id', '=', series.workspaceId)
            .where('format', '=', series.format)
            .where('period', '=', series.period),
        )
        .selectFrom('changed')
        .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('changed'))
        .executeTakeFirstOrThrow();
      return changed;
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
