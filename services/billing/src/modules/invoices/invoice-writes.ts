import type { EventEnvelope } from '@invoicing/contracts';
import { captureTraceContext } from '@invoicing/service-kit';
import type { EntityDictionary } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { columnName, toColumnsJson } from '../../shared/columns.ts';
import { AccountEntity, type AccountRow } from '../account/account.entity.ts';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { InvoiceEntity, InvoiceLineEntity, type InvoiceLineRow, type InvoiceRow, type StoredStatus } from './invoice.entity.ts';

/**
 * The hot paths' statements. Each round trip to PostgreSQL costs more than the work it carries, so
 * a use case reads what it needs in one statement and writes a change — the invoice, its lines,
 * its timeline entry and its events — in one statement of data-modifying CTEs, which PostgreSQL
 * applies atomically. Lines and timeline entries reference their invoice through deferred foreign
 * keys, so the order of the CTEs does not matter.
 */

const S = `"${BILLING_SCHEMA}"`;

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

export interface LoadedInvoice {
  invoice: InvoiceRow;
  lines: InvoiceLineRow[];
  /** Null when the workspace never saved settings. */
  account: AccountRow | null;
}

type LoadedRaw = EntityDictionary<InvoiceRow> & { lines_json: EntityDictionary<InvoiceLineRow>[]; account_json: EntityDictionary<AccountRow> | null };

// The request's trace context goes with each row, so the relay publishes it in that trace (absent, so null, with tracing off).
const outboxRows = (events: readonly EventEnvelope[]) => {
  const traceContext = captureTraceContext();
  return JSON.stringify(events.map((envelope) => ({ id: envelope.id, subject: envelope.type, envelope, trace_context: traceContext })));
};

/** A change of some columns of one invoice, with the timeline entries and events that report it. */
export interface InvoiceChange {
  invoice: InvoiceRow;
  /** The properties written; every other column keeps its value. */
  properties: readonly (keyof InvoiceRow)[];
  /** Write only while the invoice still has this status; otherwise nothing at all is written. */
  onlyWhileStatus?: StoredStatus;
  timeline: readonly TimelineEntryRow[];
  events: readonly EventEnvelope[];
}

const changeSql = new Map<string, string>();
const changeStatement = (change: InvoiceChange): string => {
  const columns = change.properties.map((property) => columnName(String(property)));
  const key = `${columns.join(',')}|${Boolean(change.onlyWhileStatus)}`;
  let sql = changeSql.get(key);
  if (!sql) {
    sql = `
      with changed as (
             update ${S}.invoices i set (${columns.join(', ')}) = (${columns.map((column) => `r.${column}`).join(', ')})
               from jsonb_populate_record(null::${S}.invoices, ?::jsonb) r
              where i.id = r.id and i.workspace_id = r.workspace_id${change.onlyWhileStatus ? ' and i.status = ?' : ''}
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

const loaded = (db: EntityManager, raw: LoadedRaw | undefined): LoadedInvoice | null => {
  if (!raw) return null;
  const { lines_json: lines, account_json: account, ...invoice } = raw;
  return {
    invoice: db.map(InvoiceEntity, invoice as EntityDictionary<InvoiceRow>),
    lines: lines.map((line) => db.map(InvoiceLineEntity, line)),
    account: account ? db.map(AccountEntity, account) : null,
  };
};

export const invoiceWrites = () => ({
  /** The invoice with its lines and its workspace's settings, in one statement; null when the workspace has no such invoice. */
  load: async (db: EntityManager, workspaceId: string, id: string): Promise<LoadedInvoice | null> =>
    loaded(db, (await db.execute<LoadedRaw[]>(LOAD_SQL, [id, workspaceId]))[0]),

  /** The invoice a public link names, whatever its workspace: the link itself is the credential. */
  loadByPublicToken: async (db: EntityManager, token: string): Promise<LoadedInvoice | null> =>
    loaded(db, (await db.execute<LoadedRaw[]>(LOAD_BY_PUBLIC_TOKEN_SQL, [token]))[0]),

  /** A new draft with its lines, its `created` entry and its event: one statement. */
  insertDraft: async (db: EntityManager, invoice: InvoiceRow, lines: readonly InvoiceLineRow[], entry: TimelineEntryRow, event: EventEnvelope): Promise<void> => {
    await db.execute(INSERT_DRAFT_SQL, [toColumnsJson(invoice), toColumnsJson(lines), toColumnsJson([entry]), outboxRows([event])]);
  },

  /** Applies a change in one statement; false when `onlyWhileStatus` no longer held (and nothing was written). */
  change: async (db: EntityManager, change: InvoiceChange): Promise<boolean> => {
    const params: unknown[] = [toColumnsJson(change.invoice)];
    if (change.onlyWhileStatus) params.push(change.onlyWhileStatus);
    params.push(toColumnsJson(change.timeline), outboxRows(change.events));
    const [row] = await db.execute<{ changed: number }[]>(changeStatement(change), params);
    return (row?.changed ?? 0) > 0;
  },
});
