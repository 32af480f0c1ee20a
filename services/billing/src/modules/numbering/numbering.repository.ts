import type { EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { InvoiceEntity, type InvoiceRow } from '../invoices/invoice.entity.ts';
import { GENESIS_CHAIN } from './invoice-integrity.domain.ts';

/** A number series: (workspace, format, period). */
export interface Series {
  workspaceId: string;
  format: string;
  period: string;
}

/** Numbers taken from a series: `first` .. `first + count - 1`, chained onto `previousChain`. */
export interface TakenNumbers {
  first: number;
  previousChain: string;
}

export interface SeriesCount {
  format: string;
  period: string;
  lastValue: number;
  lastChain: string;
  issued: number;
  firstSequence: number | null;
  lastSequence: number | null;
}

export interface SequenceGap {
  format: string;
  period: string;
  first: number;
  last: number;
}

const S = `"${BILLING_SCHEMA}"`;

// One atomic upsert moves the counter by `count` and locks its row until the transaction ends; the
// chain value it returns is the one before (the statement leaves it), which the transaction then
// carries forward onto the numbers it took (setChainHead).
const TAKE_NUMBERS_SQL = `
  insert into ${S}.number_series as s (workspace_id, format, period, last_value, last_chain_sha256)
  values (?, ?, ?, ?, '${GENESIS_CHAIN}')
  on conflict (workspace_id, format, period) do update set last_value = s.last_value + excluded.last_value
  returning s.last_value, s.last_chain_sha256`;

export const numberingRepository = (em: EntityManager) => ({
  /** Takes the next `count` numbers of the series inside `tx`; its counter row stays locked until `tx` ends. */
  takeNumbers: async (tx: EntityManager, series: Series, count: number): Promise<TakenNumbers> => {
    const [row] = await tx.execute<{ last_value: string; last_chain_sha256: string }[]>(TAKE_NUMBERS_SQL, [series.workspaceId, series.format, series.period, count]);
    return { first: Number(row!.last_value) - count + 1, previousChain: row!.last_chain_sha256 };
  },

  /** Every counter of the workspace beside a recount of the invoices holding its numbers. */
  seriesWithCounts: async (workspaceId: string): Promise<SeriesCount[]> => {
    const rows = await em.execute<{ format: string; period: string; last_value: string; last_chain_sha256: string; issued: string; first_sequence: string | null; last_sequence: string | null }[]>(
      `select s.format, s.period, s.last_value, s.last_chain_sha256,
              count(i.id) as issued, min(i.number_sequence) as first_sequence, max(i.number_sequence) as last_sequence
         from ${S}.number_series s
         left join ${S}.invoices i
           on i.workspace_id = s.workspace_id and i.number_format = s.format and i.number_period = s.period
        where s.workspace_id = ?
        group by s.format, s.period, s.last_value, s.last_chain_sha256
        order by s.period desc, s.format`,
      [workspaceId],
    );
    return rows.map((row) => ({
      format: row.format,
      period: row.period,
      lastValue: Number(row.last_value),
      lastChain: row.last_chain_sha256,
      issued: Number(row.issued),
      firstSequence: row.first_sequence === null ? null : Number(row.first_sequence),
      lastSequence: row.last_sequence === null ? null : Number(row.last_sequence),
    }));
  },

  /** Runs of missing sequence values between (and before) the numbers held, found in one pass. */
  internalGaps: async (workspaceId: string): Promise<SequenceGap[]> => {
    const rows = await em.execute<{ format: string; period: string; first: string; last: string }[]>(
      `select number_format as format, number_period as period, previous + 1 as first, number_sequence - 1 as last
         from (select number_format, number_period, number_sequence,
                      lag(number_sequence, 1, 0::bigint) over (partition by number_format, number_period order by number_sequence) as previous
                 from ${S}.invoices
                where workspace_id = ? and number_sequence is not null) held
        where number_sequence > previous + 1
        order by format, period, first`,
      [workspaceId],
    );
    return rows.map((row) => ({ format: row.format, period: row.period, first: Number(row.first), last: Number(row.last) }));
  },

  /** The next `limit` finalized invoices of a series after `afterSequence`, in sequence order. */
  seriesPage: (workspaceId: string, format: string, period: string, afterSequence: number, limit: number): Promise<InvoiceRow[]> =>
    em.find(
      InvoiceEntity,
      { workspaceId, numberFormat: format, numberPeriod: period, numberSequence: { $gt: afterSequence } },
      { orderBy: { numberSequence: 'asc' }, limit },
    ),
});
