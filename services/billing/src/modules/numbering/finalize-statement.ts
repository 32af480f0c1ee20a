import type { EventEnvelope } from '@invoicing/contracts';
import { outboxTraceContext } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { columnName, toColumnsJson } from '../../shared/columns.ts';
import type { InvoiceRow } from '../invoices/invoice.entity.ts';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { GENESIS_CHAIN } from './invoice-integrity.domain.ts';

/**
 * Finalization as ONE statement, so the series counter's row lock lasts only while PostgreSQL
 * executes it, never across a round trip to this process (under load, a round trip waits behind
 * every other request's work, and all finalizations of a series would queue behind it):
 *
 * 1. lock the invoice, only while it is still the draft that was read (same `updated_at`);
 * 2. take the next value of the series with the atomic upsert on its counter row;
 * 3. format the number and hash the frozen invoice: the process sends the canonical JSON with a
 *    placeholder where the number goes, so PostgreSQL computes exactly what the process would;
 * 4. chain the hash onto the series' last chain value, kept on the counter row;
 * 5. write the invoice, its timeline entry and its event (placeholders filled in).
 *
 * No row comes back when the invoice was no longer that draft: then nothing was written and no
 * number was taken. A statement is atomic, so a failure (such as a number another format issued
 * already) gives the number back.
 */

const S = `"${BILLING_SCHEMA}"`;
const hex = (text: string) => `encode(sha256(convert_to(${text}, 'UTF8')), 'hex')`;
/** The number for sequence `sequence`: zero-padded to at least `width`, never cut. */
const numberFor = (sequence: string) => `p.before || lpad((${sequence})::text, greatest(p.width, length((${sequence})::text)), '0') || p.after`;
const snapshotFor = (number: string) => hex(`replace(p.doc, p.number_placeholder, ${number})`);

export interface FinalizePlan {
  /** The invoice as finalized, but for its number, sequence and hashes, which the statement fills in. */
  invoice: InvoiceRow;
  /** `updated_at` of the draft as read: the statement writes nothing if it changed since. */
  readVersion: Date;
  /** Stored columns this finalization sets, besides number and hashes. */
  properties: readonly (keyof InvoiceRow)[];
  format: string;
  period: string;
  /** The number around its sequence: `INV/2026/` + at least `width` digits + ``. */
  numberParts: { before: string; width: number; after: string };
  /** Canonical JSON of the frozen invoice, the number replaced by `placeholders.number`. */
  document: string;
  placeholders: { number: string; snapshot: string; chain: string };
  timeline: TimelineEntryRow;
  event: EventEnvelope;
}

export interface FinalizedNumber {
  sequence: number;
  number: string;
  snapshotSha256: string;
  chainSha256: string;
}

const NUMBER_COLUMNS = ['number', 'number_format', 'number_period', 'number_sequence', 'snapshot_sha256', 'chain_sha256'];

const statements = new Map<string, string>();
const statementFor = (properties: readonly string[]): string => {
  const columns = properties.map(columnName);
  const key = columns.join(',');
  let sql = statements.get(key);
  if (sql) return sql;
  sql = `
    with p as (
           select ?::uuid as id, ?::uuid as workspace_id, ?::timestamptz as read_version, ?::text as format, ?::text as period,
                  ?::text as before, ?::int as width, ?::text as after, ?::text as doc, ?::text as number_placeholder),
         target as (
           select i.id from ${S}.invoices i, p
            where i.id = p.id and i.workspace_id = p.workspace_id and i.status = 'draft' and i.updated_at = p.read_version
              for update of i),
         counter as (
           insert into ${S}.number_series as s (workspace_id, format, period, last_value, last_chain_sha256)
           select p.workspace_id, p.format, p.period, 1, ${hex(`'${GENESIS_CHAIN}' || ${snapshotFor(numberFor('1'))}`)} from p, target
               on conflict (workspace_id, format, period) do update
              set last_value = s.last_value + 1,
                  last_chain_sha256 = (select ${hex(`s.last_chain_sha256 || ${snapshotFor(numberFor('s.last_value + 1'))}`)} from p)
           returning s.last_value, s.last_chain_sha256),
         numbered as (
           select c.last_value as sequence, ${numberFor('c.last_value')} as number, c.last_chain_sha256 as chain from counter c, p),
         hashed as (
           select n.sequence, n.number, n.chain, ${snapshotFor('n.number')} as snapshot from numbered n, p),
         changed as (
           update ${S}.invoices i
              set (${[...columns, ...NUMBER_COLUMNS].join(', ')}) =
                  (${[...columns.map((column) => `r.${column}`), 'h.number', 'p.format', 'p.period', 'h.sequence', 'h.snapshot', 'h.chain'].join(', ')})
             from jsonb_populate_record(null::${S}.invoices, ?::jsonb) r, hashed h, p
            where i.id = p.id
           returning i.id),
         timeline as (
           insert into ${S}.invoice_timeline
           select t.* from hashed h, p, jsonb_populate_recordset(null::${S}.invoice_timeline, replace(?::text, p.number_placeholder, h.number)::jsonb) t),
         outbox as (
           insert into ${S}.outbox (id, subject, envelope, trace_context)
           select ?::uuid, ?::text, replace(replace(replace(?::text, p.number_placeholder, h.number), ?::text, h.snapshot), ?::text, h.chain)::jsonb, ?::jsonb
             from hashed h, p)
    select h.sequence, h.number, h.snapshot, h.chain from hashed h`;
  statements.set(key, sql);
  return sql;
};

/** Runs the plan; the number and hashes it took, or null when the invoice was no longer that draft. */
export const finalizeWithNextNumber = async (db: EntityManager, plan: FinalizePlan): Promise<FinalizedNumber | null> => {
  const { invoice, numberParts, placeholders } = plan;
  const [row] = await db.execute<{ sequence: string; number: string; snapshot: string; chain: string }[]>(statementFor(plan.properties.map(String)), [
    invoice.id,
    invoice.workspaceId,
    plan.readVersion,
    plan.format,
    plan.period,
    numberParts.before,
    numberParts.width,
    numberParts.after,
    plan.document,
    placeholders.number,
    toColumnsJson(invoice),
    toColumnsJson([plan.timeline]),
    plan.event.id,
    plan.event.type,
    JSON.stringify(plan.event),
    placeholders.snapshot,
    placeholders.chain,
    outboxTraceContext(),
  ]);
  return row ? { sequence: Number(row.sequence), number: row.number, snapshotSha256: row.snapshot, chainSha256: row.chain } : null;
};
