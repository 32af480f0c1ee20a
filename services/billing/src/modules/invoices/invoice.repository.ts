import type { EventEnvelope, InvoiceStatus, Metadata } from '@invoicing/contracts';
import {
  captureTraceContext,
  containsPattern,
  newestFirstPage,
  outboxColumns,
  type KeyedWriteClaim,
  type KeyedWrites,
  type KeysetPosition,
  type OutboxEntry,
  type RecordedOutcome,
  whereMetadataHolds,
} from '@invoicing/service-kit';
import { columnsOf, entityColumns, entityRow, entityRows, insertOnlyWith, sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager, type InferEntity } from '@mikro-orm/postgresql';
import { sql, type QueryCreator } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { AccountEntity, type AccountRow } from '../account/account.entity.ts';
import { GENESIS_CHAIN } from '../numbering/invoice-integrity.domain.ts';
import type { Series } from '../numbering/numbering.domain.ts';
import { TimelineEntryEntity, type TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { FINALIZED_PROPERTIES, type FinalizedColumns } from './finalization.domain.ts';
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
  if (filter.status !== undefined) qb.andWhere(statusCondition(filter.status, filter.today, filter.clockTodays));
  if (filter.q !== undefined) {
    const pattern = containsPattern(filter.q);
    qb.andWhere({ $or: [{ number: { $ilike: pattern } }, { customerName: { $ilike: pattern } }, { notes: { $ilike: pattern } }] });
  }
  if (filter.createdFrom) qb.andWhere({ createdAt: { $gte: filter.createdFrom } });
  if (filter.createdUntil) qb.andWhere({ createdAt: { $lte: filter.createdUntil } });
  whereMetadataHolds(qb, filter.metadata);
  return newestFirstPage(qb, position, limit, 'createdAt');
};

export interface InvoiceFilter {
  customerId?: string | undefined;
  status?: InvoiceStatus | undefined;
  q?: string | undefined;
  createdFrom?: Date | undefined;
  createdUntil?: Date | undefined;
  /** Pairs every invoice's metadata must hold. */
  metadata?: Metadata | undefined;
  /** Today in the workspace's time zone: it tells `open` from `overdue`. */
  today: string;
  /** In a test space, today on each of its test clocks (by clock id): the clock's invoices are open or overdue by that day. */
  clockTodays?: ReadonlyMap<string, string> | undefined;
}

const statusCondition = (status: InvoiceStatus, today: string, clockTodays: ReadonlyMap<string, string> = new Map()) => {
  if (status !== 'overdue' && status !== 'open') return { status };
  const onDay = (day: string) =>
    status === 'overdue' ? { status: 'open' as StoredStatus, dueDate: { $lt: day } } : { status: 'open' as StoredStatus, $or: [{ dueDate: null }, { dueDate: { $gte: day } }] };
  if (clockTodays.size === 0) return onDay(today);
  return { $or: [{ testClockId: null, ...onDay(today) }, ...[...clockTodays].map(([testClockId, day]) => ({ testClockId, ...onDay(day) }))] };
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
        // Exact decimals as text: a JSON number would be read as a binary float.
        .select(
          sql<Record<string, unknown>[]>`coalesce(json_agg(to_jsonb(l) || jsonb_build_object('quantity_decimal', l.quantity_decimal::text, 'unit_amount_decimal', l.unit_amount_decimal::text, 'price_base_quantity', l.price_base_quantity::text) order by l.position), '[]'::json)`.as(
            'lines',
          ),
        )
        .whereRef('l.invoice_id', '=', 'i.id')
        .as('lines'),
      eb
        .selectFrom('accounts as a')
        .select((account) => account.fn.toJson('a').as('account'))
        .whereRef('a.workspace_id', '=', 'i.workspace_id')
        .as('account'),
    ]);

/** Rolls back a period's draft whose key already held a live outcome. */
class KeyHeld extends Error {}

/** An invoice with its lines and its workspace's settings, read in one statement. */
export interface LoadedInvoice {
  invoice: InvoiceRow;
  lines: InvoiceLineRow[];
  /** Null when the workspace never saved settings. */
  account: AccountRow | null;
}

/** Invoices with their lines, by ID, and their workspace's settings (null when it never saved any). */
export interface LoadedInvoices {
  invoices: ReadonlyMap<string, { invoice: InvoiceRow; lines: InvoiceLineRow[] }>;
  account: AccountRow | null;
}

/** A change of some columns of one open (or finalized) invoice, with the timeline entry and the event that report it. */
export interface InvoiceChange {
  invoice: InvoiceRow;
  /** The properties written; every other column keeps its value. */
  properties: readonly (keyof InvoiceRow)[];
  /** Write only while the invoice still has this status; otherwise nothing at all is written. */
  whileStatus: StoredStatus;
  /** Also only while no payment is recorded on it (a void: an invoice with a payment is no longer unpaid). */
  whileUnpaid?: boolean | undefined;
  entry: TimelineEntryRow;
  event: EventEnvelope;
  /** A keyed request's outcome (its response), recorded by the same statement. */
  outcome?: { writes: KeyedWrites; claim: KeyedWriteClaim; outcome: RecordedOutcome } | undefined;
}

/** Drafts of one series to finalize, each as it was read: it is taken only while it still has that `updated_at`. */
export interface DraftsToNumber {
  series: Series;
  drafts: readonly { id: string; readVersion: Date }[];
}

/** The drafts locked, and the numbers taken for them: `first` .. `first + locked.size - 1`, chained onto `previousChain`. */
export interface TakenNumbers {
  locked: ReadonlySet<string>;
  first: number;
  previousChain: string;
}

/** What one finalize transaction writes: the columns finalization set on each invoice, their entries and events, and the series' new chain head. */
export interface FinalizedBatch {
  series: Series;
  invoices: readonly { id: string; columns: FinalizedColumns }[];
  timeline: readonly TimelineEntryRow[];
  events: readonly OutboxEntry[];
  chainHead: string;
  /** The keyed members' outcomes (their Idempotency-Key records), written by the same statement. */
  outcomes?: { writes: KeyedWrites; entries: readonly { claim: KeyedWriteClaim; outcome: RecordedOutcome }[] } | undefined;
}

/** How many invoices a finalize batch changed, and how many of its outcomes it recorded. */
export interface FinalizedCounts {
  changed: number;
  recorded: number;
}

export type { OutboxEntry };

/**
 * Some columns of many rows of an entity as one jsonb parameter, read as the table `v` with each
 * column's own type (`jsonb_to_recordset`): one parameter and one statement text for any number
 * of rows. Values go in as the ORM writes them (entityColumns), so a JSON column arrives as text,
 * declared `text` here and cast where it is used (`jsonColumnOf`).
 */
const recordsetOf = <Entity extends typeof InvoiceEntity | typeof InvoiceLineEntity>(
  em: EntityManager,
  entity: Entity,
  properties: readonly (keyof InferEntity<Entity> & string)[],
  rows: readonly Partial<InferEntity<Entity>>[],
) => {
  const meta = em.getMetadata().get(entity as typeof InvoiceEntity);
  const definitions = properties.map((property) => {
    const { fieldNames, columnTypes } = meta.properties[property as never] as { fieldNames: string[]; columnTypes: string[] };
    return sql`${sql.ref(fieldNames[0]!)} ${sql.raw(columnTypes[0] === 'jsonb' ? 'text' : columnTypes[0]!)}`;
  });
  const json = JSON.stringify(rows.map((row) => entityColumns(em, entity, row as never)));
  return sql`jsonb_to_recordset(${json}::jsonb)`.as<'v'>(sql`${sql.ref('v')}(${sql.join(definitions)})`);
};

const isJsonProperty = (em: EntityManager, property: keyof InvoiceRow & string): boolean =>
  em.getMetadata().get(InvoiceEntity).properties[property]!.columnTypes[0] === 'jsonb';

/** The properties of an invoice line, in the order of its columns. */
const LINE_PROPERTIES = [
  'id',
  'invoiceId',
  'workspaceId',
  'position',
  'priceId',
  'productId',
  'description',
  'quantity',
  'unitAmount',
  'discountAmountOff',
  'discountPercentOff',
  'discountAmount',
  'taxRate',
  'amount',
  'tax',
  'unitCode',
  'taxCategory',
  'taxExemptionReason',
  'periodStart',
  'periodEnd',
  'quantityDecimal',
  'unitAmountDecimal',
  'priceBaseQuantity',
  'taxExemptionReasonCode',
  'sku',
  'standardId',
  'standardIdScheme',
  'note',
] as const satisfies readonly (keyof InvoiceLineRow)[];

export const finalizedInvoicesUpdate = (db: QueryCreator<BillingDatabase>, tx: EntityManager, workspaceId: string, invoices: FinalizedBatch['invoices']) =>
  db
    .updateTable('invoices')
    .from(recordsetOf(tx, InvoiceEntity, ['id', ...FINALIZED_PROPERTIES], invoices.map(({ id, columns }) => ({ id, ...columns }))))
    .set(
      Object.fromEntries(
        FINALIZED_PROPERTIES.map((property) => {
          const [column] = columnsOf(tx, InvoiceEntity, [property]);
          const value = sql.ref(`v.${column}`);
          return [column, isJsonProperty(tx, property) ? sql`${value}::jsonb` : value];
        }),
      ) as never,
    )
    .whereRef('invoices.id', '=', sql.ref('v.id') as never)
    .where('invoices.workspace_id', '=', workspaceId)
    .returning('invoices.id');

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

    /**
     * Invoices of one workspace with their lines, and the workspace's settings (null when it never
     * saved any), in one statement: those found, by ID.
     */
    findManyWithLinesAndSettings: async (workspaceId: string, ids: readonly string[]): Promise<LoadedInvoices> => {
      const rows = await loadQuery(em).where('i.id', 'in', [...ids]).where('i.workspace_id', '=', workspaceId).execute();
      // Every row carries the workspace's settings: read once.
      const account = rows[0]?.account ? entityRow(em, AccountEntity, rows[0].account)! : null;
      const invoices = new Map<string, { invoice: InvoiceRow; lines: InvoiceLineRow[] }>();
      for (const { lines, account: _settings, ...invoice } of rows) {
        invoices.set(invoice.id, { invoice: entityRow(em, InvoiceEntity, invoice)!, lines: entityRows(em, InvoiceLineEntity, lines ?? []) });
      }
      return { invoices, account };
    },

    /** The invoice a public link names, whatever its workspace: the link itself is the credential. */
    /** A draft is never found, in the same statement as an unknown token, so neither answers sooner than the other. */
    findIssuedByPublicToken: async (token: string): Promise<LoadedInvoice | null> =>
      loaded(await loadQuery(em).where('i.public_url_token', '=', token).where('i.status', '<>', 'draft').executeTakeFirst()),

    /**
     * A new draft with its lines (at least one: the contract's `items` asks for one), its `created`
     * entry and its event: one statement. A keyed request's outcome is recorded by it first, and
     * the draft written only when it was (the key was free; the statement needs no transaction
     * around it): false when the key already held a live outcome, and nothing was written.
     */
    insertDraft: async (
      invoice: InvoiceRow,
      lines: readonly InvoiceLineRow[],
      entry: TimelineEntryRow,
      event: EventEnvelope,
      outcome?: { writes: KeyedWrites; claim: KeyedWriteClaim; outcome: RecordedOutcome },
    ): Promise<boolean> => {
      if (!outcome) {
        await sqlOf<BillingDatabase>(em)
          .with('new_invoice', (db) => db.insertInto('invoices').values(entityColumns(em, InvoiceEntity, invoice)))
          .with('new_lines', (db) => db.insertInto('invoice_lines').values(lines.map((line) => entityColumns(em, InvoiceLineEntity, line))))
          .with('new_entries', (db) => db.insertInto('invoice_timeline').values(entityColumns(em, TimelineEntryEntity, entry)))
          .insertInto('outbox')
          .values(outboxRows([fromThisRequest(event)]))
          .execute();
        return true;
      }
      const { recorded } = await sqlOf<BillingDatabase>(em)
        .with('new_records', (db) => outcome.writes.recordManyIn(db, [outcome]))
        // Selected from `new_records` (one row, or none), the draft's rows are written only with the record.
        .with('new_invoice', (db) => insertOnlyWith(db, 'invoices', 'new_records', entityColumns(em, InvoiceEntity, invoice)))
        .with('new_lines', (db) =>
          db
            .insertInto('invoice_lines')
            .columns(columnsOf(em, InvoiceLineEntity, LINE_PROPERTIES))
            .expression((eb) => eb.selectFrom(['new_records' as 'invoice_lines', recordsetOf(em, InvoiceLineEntity, LINE_PROPERTIES, lines)]).selectAll('v' as never) as never),
        )
        .with('new_entries', (db) => insertOnlyWith(db, 'invoice_timeline', 'new_records', entityColumns(em, TimelineEntryEntity, entry)))
        .with('new_events', (db) => insertOnlyWith(db, 'outbox', 'new_records', outboxColumns(em, fromThisRequest(event))))
        .selectNoFrom((eb) => eb.cast<number>(eb.selectFrom('new_records' as 'invoices').select((records) => records.fn.countAll().as('recorded')), 'integer').as('recorded'))
        .executeTakeFirstOrThrow();
      return recorded > 0;
    },

    /**
     * A subscription period's draft (`invoice.subscriptionId` and `subscriptionPeriodStart` set),
     * with its lines, `created` entry and event: written only when the period has no invoice yet,
     * by `insert … on conflict do nothing` on `invoices_one_per_subscription_period`, whatever the
     * key. A concurrent create of the same period waits at that index for the first to commit and
     * then writes nothing. `created`; or `period-invoiced` when the period has an invoice and
     * nothing was written (the caller reads it with `findPeriodInvoiceWithLinesAndSettings`, in a
     * statement of its own: this one's snapshot may predate the invoice it met); or `key-held`
     * when the key already held a live outcome (of another request: the same one would have met
     * the period's invoice), and nothing was written. A keyed outcome is recorded only with the
     * draft, in the same statement, in a transaction that is rolled back when the key was held.
     */
    insertPeriodDraft: async (
      invoice: InvoiceRow,
      lines: readonly InvoiceLineRow[],
      entry: TimelineEntryRow,
      event: EventEnvelope,
      outcome?: { writes: KeyedWrites; claim: KeyedWriteClaim; outcome: RecordedOutcome },
    ): Promise<'created' | 'period-invoiced' | 'key-held'> => {
      const write = (tx: EntityManager) => {
        const drafted = sqlOf<BillingDatabase>(tx).with('new_invoice', (db) =>
          db
            .insertInto('invoices')
            .values(entityColumns(tx, InvoiceEntity, invoice))
            .onConflict((oc) => oc.columns(['workspace_id', 'subscription_id', 'subscription_period_start']).where('subscription_id', 'is not', null).doNothing())
            .returning('id'),
        );
        // Typed as `drafted` alone: `new_records` is named only where it exists.
        const recording = (outcome ? drafted.with('new_records', (db) => outcome.writes.recordIn(db, outcome, 'new_invoice')) : drafted) as typeof drafted;
        return (
          recording
            // Selected from `new_invoice` (the draft, or no row), the rest is written only with the draft.
            .with('new_lines', (db) =>
              db
                .insertInto('invoice_lines')
                .columns(columnsOf(tx, InvoiceLineEntity, LINE_PROPERTIES))
                .expression((eb) => eb.selectFrom(['new_invoice', recordsetOf(tx, InvoiceLineEntity, LINE_PROPERTIES, lines)]).selectAll('v' as never) as never),
            )
            .with('new_entries', (db) => insertOnlyWith(db, 'invoice_timeline', 'new_invoice', entityColumns(tx, TimelineEntryEntity, entry)))
            .with('new_events', (db) => insertOnlyWith(db, 'outbox', 'new_invoice', outboxColumns(tx, fromThisRequest(event))))
            .selectNoFrom((eb) => [
              eb.cast<number>(eb.selectFrom('new_invoice').select((created) => created.fn.countAll().as('created')), 'integer').as('created'),
              outcome
                ? eb.cast<number>(eb.selectFrom('new_records' as 'new_invoice').select((records) => records.fn.countAll().as('recorded')), 'integer').as('recorded')
                : eb.lit(1).as('recorded'),
            ])
            .executeTakeFirstOrThrow()
        );
      };
      if (!outcome) return (await write(em)).created > 0 ? 'created' : 'period-invoiced';
      try {
        return await em.transactional(async (tx) => {
          const { created, recorded } = await write(tx);
          if (created === 0) return 'period-invoiced';
          if (recorded === 0) throw new KeyHeld();
          return 'created';
        });
      } catch (error) {
        if (error instanceof KeyHeld) return 'key-held';
        throw error;
      }
    },

    /** The invoice of one subscription period with its lines and its workspace's settings, in one statement; null when the period has none. */
    findPeriodInvoiceWithLinesAndSettings: async (workspaceId: string, subscriptionId: string, periodStart: string): Promise<LoadedInvoice | null> =>
      loaded(
        await loadQuery(em)
          .where('i.workspace_id', '=', workspaceId)
          .where('i.subscription_id', '=', subscriptionId)
          .where('i.subscription_period_start', '=', periodStart)
          .executeTakeFirst(),
      ),

    /**
     * Applies a change (a payment, a void, a new public link) in one statement, only while the
     * invoice still has `whileStatus`, with its timeline entry and its event: `changed`; or
     * `not-in-status` when it no longer had it, and nothing was written. A keyed request's outcome
     * is recorded by the same statement, and the change is written only when it was (the statement
     * needs no transaction around it): `key-held` when the key already held a live outcome, and
     * nothing was written. Against the change and the record in a transaction of their own (begin,
     * change, record, commit), bench/keyed-change.ts measured per pay 0.40-0.45 ms of billing's CPU
     * instead of 0.63-0.66, 0.70-0.73 ms of PostgreSQL's instead of 0.80, 1.3 ms wall instead of 1.7.
     */
    changeWhileStatus: async ({ invoice, properties, whileStatus, whileUnpaid = false, entry, event, outcome }: InvoiceChange): Promise<'changed' | 'not-in-status' | 'key-held'> => {
      const changes = entityColumns(em, InvoiceEntity, Object.fromEntries(properties.map((property) => [property, invoice[property] ?? null])));
      const target = sqlOf<BillingDatabase>(em).with('target', (db) =>
        // Locked first: nothing changes its status before this statement's own change.
        db
          .selectFrom('invoices')
          .select('id')
          .where('id', '=', invoice.id)
          .where('workspace_id', '=', invoice.workspaceId)
          .where('status', '=', whileStatus)
          .$if(whileUnpaid, (unpaid) => unpaid.where('amount_paid', '=', 0))
          .forUpdate(),
      );
      // Typed as `target` alone: `new_records` is named only where it exists.
      const recording = (outcome ? target.with('new_records', (db) => outcome.writes.recordIn(db, outcome, 'target')) : target) as typeof target;
      const { open, changed } = await recording
        .with('changed', (db) =>
          db
            .updateTable('invoices')
            .set(changes)
            .where('id', 'in', db.selectFrom('target').select('target.id'))
            .$if(outcome !== undefined, (update) => update.where(({ exists, selectFrom }) => exists(selectFrom('new_records' as 'target').select(sql.lit(1).as('recorded')))))
            .returning('id'),
        )
        // Selected from `changed` (the invoice by its id, or no row), the entry and the event are
        // written only with the change.
        .with('new_entries', (db) => insertOnlyWith(db, 'invoice_timeline', 'changed', entityColumns(em, TimelineEntryEntity, entry)))
        .with('new_events', (db) => insertOnlyWith(db, 'outbox', 'changed', outboxColumns(em, fromThisRequest(event))))
        .selectNoFrom((eb) => [
          eb.cast<number>(eb.selectFrom('target').select((target) => target.fn.countAll().as('open')), 'integer').as('open'),
          eb.cast<number>(eb.selectFrom('changed').select((changed) => changed.fn.countAll().as('changed')), 'integer').as('changed'),
        ])
        .executeTakeFirstOrThrow();
      if (changed > 0) return 'changed';
      return open > 0 ? 'key-held' : 'not-in-status';
    },

    /**
     * Inside `tx`, in one statement: locks those of the drafts that are still as they were read
     * (status draft, the same `updated_at`), and takes as many numbers from the series' counter row
     * as it locked drafts, with one atomic upsert that leaves the row locked until `tx` ends. Any
     * other draft was finalized or changed meanwhile. Undefined when none was locked: then no
     * number was taken and the counter row was not touched.
     */
    lockDraftsAndTakeNumbers: async (tx: EntityManager, { series, drafts }: DraftsToNumber): Promise<TakenNumbers | undefined> => {
      if (drafts.length === 0) return undefined;
      const rows = await sqlOf<BillingDatabase>(tx)
        .with('locked', (db) =>
          db
            .selectFrom('invoices as i')
            .select('i.id')
            .where('i.workspace_id', '=', series.workspaceId)
            .where('i.status', '=', sql.lit('draft'))
            .where((eb) => eb(eb.refTuple('i.id', 'i.updated_at'), 'in', drafts.map((draft) => eb.tuple(draft.id, draft.readVersion))))
            // Lock order is drafts (by id) then the series' counter row, for every finalize of every
            // replica, so two never wait on each other in a cycle: the upsert reads `locked` first.
            .orderBy('i.id')
            .forUpdate('i'),
        )
        .with('taken', (db) =>
          db
            .insertInto('number_series')
            .columns(['workspace_id', 'format', 'period', 'last_value', 'last_chain_sha256'])
            .expression((eb) =>
              eb
                .selectFrom('locked')
                .select((locked) => [
                  eb.val(series.workspaceId).as('workspace_id'),
                  eb.val(series.format).as('format'),
                  eb.val(series.period).as('period'),
                  locked.fn.countAll<number>().as('last_value'),
                  eb.val(GENESIS_CHAIN).as('last_chain_sha256'),
                ])
                .having((locked) => locked.fn.countAll(), '>', sql.lit(0)),
            )
            .onConflict((oc) =>
              oc.columns(['workspace_id', 'format', 'period']).doUpdateSet((eb) => ({ last_value: eb('number_series.last_value', '+', eb.ref('excluded.last_value')) })),
            )
            // The chain value returned is the one before: the upsert leaves it, and the batch's write moves it on.
            .returning(['number_series.last_value', 'number_series.last_chain_sha256']),
        )
        .selectFrom(['locked', 'taken'])
        .select(['locked.id', 'taken.last_value', 'taken.last_chain_sha256'])
        .execute();
      if (rows.length === 0) return undefined;
      const { last_value, last_chain_sha256 } = rows[0]!;
      // bigint, which node-postgres reads as text.
      return { locked: new Set(rows.map((row) => row.id)), first: Number(last_value) - rows.length + 1, previousChain: last_chain_sha256 };
    },

    /**
     * Writes a finalize batch in one statement inside `tx`, while the series' counter row is locked:
     * the columns finalization set on each invoice, their timeline entries and events, the series'
     * chain head and the keyed members' outcomes.
     */
    writeFinalized: async (tx: EntityManager, { series, invoices, timeline, events, chainHead, outcomes }: FinalizedBatch): Promise<FinalizedCounts> => {
      const query = sqlOf<BillingDatabase>(tx)
        .with('finalized', (db) => finalizedInvoicesUpdate(db, tx, series.workspaceId, invoices))
        .with('new_entries', (db) => db.insertInto('invoice_timeline').values(timeline.map((entry) => entityColumns(tx, TimelineEntryEntity, entry))))
        .with('new_events', (db) => db.insertInto('outbox').values(events.map((entry) => outboxColumns(tx, entry))))
        .with('chain_head', (db) =>
          db
            .updateTable('number_series')
            .set({ last_chain_sha256: chainHead })
            .where('workspace_id', '=', series.workspaceId)
            .where('format', '=', series.format)
            .where('period', '=', series.period),
        );
      const counts = outcomes?.entries.length
        ? await query
            .with('new_records', (db) => outcomes.writes.recordManyIn(db, outcomes.entries))
            .selectFrom('finalized')
            .select((eb) => [
              eb.cast<number>(eb.fn.countAll(), 'integer').as('changed'),
              eb.cast<number>(eb.selectFrom('new_records').select((records) => records.fn.countAll().as('recorded')), 'integer').as('recorded'),
            ])
            .executeTakeFirstOrThrow()
        : { ...(await query.selectFrom('finalized').select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('changed')).executeTakeFirstOrThrow()), recorded: 0 };
      return counts;
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
      // Read to be shown, never written back: no identity map keeps them (a statement's thousands of payments read theirs group by group).
      const rows = await em.find(InvoiceLineEntity, { invoiceId: { $in: [...invoiceIds] } }, { orderBy: { invoiceId: 'asc', position: 'asc' }, disableIdentityMap: true });
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
