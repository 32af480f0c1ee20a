// Many invoices fast, for measurements that need them in bulk: copies of one draft that billing
// wrote through the API, made with SQL in billing's own tables. Each copy is a row billing would
// write for the same request (its own UUIDv7 ids, its own created_at, its lines and its 'created'
// timeline entry); the columns are read from the database, so a migration that adds one is copied too.
import { toPublicId } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit';
import pg from 'pg';

const CHUNK = 5_000;

const columnsOf = async (client: pg.Client, table: string): Promise<string[]> => {
  const { rows } = await client.query<{ column_name: string }>(
    `select column_name from information_schema.columns
     where table_schema = 'billing' and table_name = $1 and is_generated = 'NEVER' order by ordinal_position`,
    [table],
  );
  return rows.map((row) => row.column_name);
};

/** The select list copying `columns` from alias `t`, with some columns replaced by expressions. */
const copyList = (columns: readonly string[], replaced: Readonly<Record<string, string>>) =>
  columns.map((column) => replaced[column] ?? `t.${column}`).join(', ');

export interface CopyOptions {
  /** The newest copy's created_at; each further copy is one millisecond older, so the order is total. */
  newestAt: Date;
}

/**
 * `count` copies of the draft `templateId` (a UUID) in its workspace; answers their public IDs,
 * newest first.
 */
export const copyDraft = async (databaseUrl: string, templateId: string, count: number, { newestAt }: CopyOptions): Promise<string[]> => {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const invoiceColumns = await columnsOf(client, 'invoices');
    const lineColumns = await columnsOf(client, 'invoice_lines');
    const timelineColumns = await columnsOf(client, 'invoice_timeline');
    const { rows: lineCount } = await client.query<{ lines: number; entries: number }>(
      `select (select count(*)::int from billing.invoice_lines where invoice_id = $1) as lines,
              (select count(*)::int from billing.invoice_timeline where invoice_id = $1) as entries`,
      [templateId],
    );
    const { lines, entries } = lineCount[0]!;
    const ids: string[] = [];
    for (let offset = 0; offset < count; offset += CHUNK) {
      const size = Math.min(CHUNK, count - offset);
      const chunkIds = Array.from({ length: size }, () => newId());
      const created = chunkIds.map((_, index) => new Date(newestAt.getTime() - (offset + index)).toISOString());
      const lineIds = Array.from({ length: size * lines }, () => newId());
      const entryIds = Array.from({ length: size * entries }, () => newId());
      await client.query('begin');
      await client.query(
        `insert into billing.invoices (${invoiceColumns.join(', ')})
         select ${copyList(invoiceColumns, { id: 'm.id', created_at: 'm.created_at', updated_at: 'm.created_at' })}
         from billing.invoices t, unnest($2::uuid[], $3::timestamptz[]) as m (id, created_at)
         where t.id = $1`,
        [templateId, chunkIds, created],
      );
      await client.query(
        `insert into billing.invoice_lines (${lineColumns.join(', ')})
         select ${copyList(lineColumns, { id: `($3::uuid[])[(m.n - 1) * ${lines} + t.rank]`, invoice_id: 'm.id' })}
         from (select *, row_number() over (order by position) as rank from billing.invoice_lines where invoice_id = $1) t,
              unnest($2::uuid[]) with ordinality as m (id, n)`,
        [templateId, chunkIds, lineIds],
      );
      await client.query(
        `insert into billing.invoice_timeline (${timelineColumns.join(', ')})
         select ${copyList(timelineColumns, { id: `($4::uuid[])[(m.n - 1) * ${entries} + t.rank]`, invoice_id: 'm.id', occurred_at: 'm.created_at' })}
         from (select *, row_number() over (order by occurred_at, id) as rank from billing.invoice_timeline where invoice_id = $1) t,
              unnest($2::uuid[], $3::timestamptz[]) with ordinality as m (id, created_at, n)`,
        [templateId, chunkIds, created, entryIds],
      );
      await client.query('commit');
      ids.push(...chunkIds);
    }
    return ids.map((id) => toPublicId('invoice', id));
  } catch (error) {
    await client.query('rollback').catch(() => {});
    throw error;
  } finally {
    await client.end();
  }
};
