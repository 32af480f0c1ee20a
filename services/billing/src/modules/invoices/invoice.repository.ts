import type { EventEnvelope, InvoiceStatus } from '@invoicing/contracts';
import { captureTraceContext, containsPattern, newestFirstPage, type KeysetPosition, type TraceCarrier } from '@invoicing/service-kit';
import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityDictionary } from '@mikro-orm/core';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { AccountEntity, type AccountRow } from '../account/account.entity.ts';
import type { Series } from '../numbering/numbering.repository.ts';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
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

const propertiesOf = <Row extends object>(row: Row) => Object.keys(row) as (keyof Row & string)[];

/** An event to add to the outbox, with the trace context of the request it reports (null with tracing off). */
export interface OutboxEntry {
  envelope: EventEnvelope;
  traceContext: TraceCarrier | null;
}

const outboxRow = ({ envelope, traceContext }: OutboxEntry) => ({ id: envelope.id, subject: envelope.type, envelope, traceContext });

// The request's trace context goes with the row, so the relay publishes it in that trace.
const fromThisRequest = (envelope: EventEnvelope): OutboxEntry => ({ envelope, traceContext: captureTraceContext() ?? null });

/*
 * The hot paths read what a use case needs in one statement and write a change (the invoice, its
 * lines, its timeline entry and its events) in one statement of data-modifying CTEs, which
 * PostgreSQL applies atomically: each round trip costs more than the work it carries. Lines and
 * timeline entries reference their invoice through deferred foreign keys, so the order of the
 * CTEs does not matter.
 */

/**
 * The invoice, its lines and its workspace's settings: the lines and the settings come as JSON rows
 * keyed by column, which `em.map` turns into rows as the ORM reads them.
 */
const loadQuery = (em: EntityManager) =>
  sqlOf<BillingDatabase>(em)
    .selectFrom('Invoice as i')
    .selectAll('i')
    .select((eb) => [
      eb
        .selectFrom('InvoiceLine as l')
        .select((line) => line.fn.coalesce(line.fn.jsonAgg('l').orderBy('l.position'), sql`'[]'::json`).as('lines'))
        .whereRef('l.invoiceId', '=', 'i.id')
        .$castTo<{ lines: EntityDictionary<InvoiceLineRow>[] }>()
        .as('linesJson'),
      eb
        .selectFrom('Account as a')
        .select((account) => account.fn.toJson('a').as('account'))
        .whereRef('a.workspaceId', '=', 'i.workspaceId')
        .$castTo<{ account: EntityDictionary<AccountRow> }>()
        .as('accountJson'),
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

export const invoiceRepository = (em: EntityManager) => {
  type Loaded = Awaited<ReturnType<ReturnType<typeof loadQuery>['executeTakeFirst']>>;
  const loaded = (raw: Loaded): LoadedInvoice | null => {
    if (!raw) return null;
    const { linesJson, accountJson, ...invoice } = raw;
    return {
      invoice: invoice as InvoiceRow,
      lines: (linesJson ?? []).map((line) => em.map(InvoiceLineEntity, line)),
      account: accountJson ? em.map(AccountEntity, accountJson) : null,
    };
  };

  return {
    /** The invoice with its lines and its workspace's settings, in one statement; null when the workspace has no such invoice. */
    findWithLinesAndSettings: async (workspaceId: string, id: string): Promise<LoadedInvoice | null> =>
      loaded(await loadQuery(em).where('i.id', '=', id).where('i.workspaceId', '=', workspaceId).executeTakeFirst()),

    /** The invoice a public link names, whatever its workspace: the link itself is the credential. */
    findByPublicToken: async (token: string): Promise<LoadedInvoice | null> => loaded(await loadQuery(em).where('i.publicUrlToken', '=', token).executeTakeFirst()),

    /** A new draft with its lines (at least one: the contract's `items` asks for one), its `created` entry and its event: one statement. */
    insertDraft: async (invoice: InvoiceRow, lines: readonly InvoiceLineRow[], entry: TimelineEntryRow, event: EventEnvelope): Promise<void> => {
      await sqlOf<BillingDatabase>(em)
        .with('invoice', (db) => db.insertInto('Invoice').values(invoice))
        .with('lines', (db) => db.insertInto('InvoiceLine').values([...lines]))
        .with('timeline', (db) => db.insertInto('TimelineEntry').values(entry))
        .insertInto('Outbox')
        .values(outboxRow(fromThisRequest(event)))
        .execute();
    },

    /**
     * Applies a change (a payment, a void, a new public link) in one statement, only while the
     * invoice still has `whileStatus`; false when it no longer had it, and nothing was written.
     */
    changeWhileStatus: async ({ invoice, properties, whileStatus, entry, event }: InvoiceChange): Promise<boolean> => {
      const { changed } = await sqlOf<BillingDatabase>(em)
        .with('changed', (db) =>
          db
            .updateTable('Invoice')
            .set(Object.fromEntries(properties.map((property) => [property, invoice[property] ?? null])))
            .where('id', '=', invoice.id)
            .where('workspaceId', '=', invoice.workspaceId)
            .where('status', '=', whileStatus)
            .returning('id'),
        )
        // Selected from `changed` (the invoice by its id, or no row), the entry and the event are
        // written only with the change. PostgreSQL types each value by the column it goes to, and
        // node-postgres sends an object (a JSON column's) as JSON text.
        .with('timeline', (db) =>
          db
            .insertInto('TimelineEntry')
            .columns(propertiesOf(entry))
            .expression((eb) => eb.selectFrom('changed').select(propertiesOf(entry).map((property) => eb.val(entry[property]).as(property)))),
        )
        .with('outbox', (db) => {
          const row = outboxRow(fromThisRequest(event));
          return db
            .insertInto('Outbox')
            .columns(propertiesOf(row))
            .expression((eb) => eb.selectFrom('changed').select(propertiesOf(row).map((property) => eb.val(row[property]).as(property))));
        })
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
        .selectFrom('Invoice as i')
        .select('i.id')
        .where('i.workspaceId', '=', workspaceId)
        .where('i.status', '=', 'draft')
        .where((eb) => eb(eb.refTuple('i.id', 'i.updatedAt'), 'in', drafts.map((draft) => eb.tuple(draft.id, draft.readVersion))))
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
            .insertInto('Invoice')
            .values([...invoices])
            .onConflict((oc) =>
              oc
                .column('id')
                .doUpdateSet((eb) => Object.fromEntries(FINALIZED_PROPERTIES.map((property) => [property, eb.ref(`excluded.${property}`)])))
                .whereRef('Invoice.workspaceId', '=', 'excluded.workspaceId'),
            )
            .returning('id'),
        )
        .with('timeline', (db) => db.insertInto('TimelineEntry').values([...timeline]))
        .with('outbox', (db) => db.insertInto('Outbox').values(events.map(outboxRow)))
        .with('series', (db) =>
          db
            .updateTable('NumberSeries')
            .set({ lastChainSha256: chainHead })
            .where('workspaceId', '=', series.workspaceId)
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
