import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { InvoiceEntity, type InvoiceRow } from '../invoices/invoice.entity.ts';

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

export const numberingRepository = (em: EntityManager) => ({
  /** Every counter of the workspace beside a recount of the invoices holding its numbers. */
  seriesWithCounts: async (workspaceId: string): Promise<SeriesCount[]> => {
    const rows = await sqlOf<BillingDatabase>(em)
      .selectFrom('number_series as s')
      .leftJoin('invoices as i', (join) => join.onRef('i.workspace_id', '=', 's.workspace_id').onRef('i.number_format', '=', 's.format').onRef('i.number_period', '=', 's.period'))
      .select((eb) => [
        's.format',
        's.period',
        's.last_value',
        's.last_chain_sha256',
        eb.fn.count('i.id').as('issued'),
        eb.fn.min('i.number_sequence').as('first_sequence'),
        eb.fn.max('i.number_sequence').as('last_sequence'),
      ])
      .where('s.workspace_id', '=', workspaceId)
      .groupBy(['s.format', 's.period', 's.last_value', 's.last_chain_sha256'])
      .orderBy('s.period', 'desc')
      .orderBy('s.format')
      .execute();
    // Aggregates are bigint, which node-postgres reads as text.
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
    const rows = await sqlOf<BillingDatabase>(em)
      .selectFrom((db) =>
        db
          .selectFrom('invoices')
          .select((eb) => [
            'number_format',
            'number_period',
            'number_sequence',
            eb.fn
              .agg<number>('lag', ['number_sequence', eb.lit(1), sql<number>`0::bigint`])
              .over((over) => over.partitionBy(['number_format', 'number_period']).orderBy('number_sequence'))
              .as('previous'),
          ])
          .where('workspace_id', '=', workspaceId)
          .where('number_sequence', 'is not', null)
          .as('held'),
      )
      .select((eb) => [
        eb.ref('held.number_format').as('format'),
        eb.ref('held.number_period').as('period'),
        eb('held.previous', '+', eb.lit(1)).as('first'),
        eb('held.number_sequence', '-', eb.lit(1)).as('last'),
      ])
      .where((eb) => eb('held.number_sequence', '>', eb('held.previous', '+', eb.lit(1))))
      .orderBy('format')
      .orderBy('period')
      .orderBy('first')
      .execute();
    // bigint, which node-postgres reads as text.
    return rows.map((row) => ({ format: row.format!, period: row.period!, first: Number(row.first), last: Number(row.last) }));
  },

  /** The next `limit` finalized invoices of a series after `afterSequence`, in sequence order. */
  seriesPage: (workspaceId: string, format: string, period: string, afterSequence: number, limit: number): Promise<InvoiceRow[]> =>
    em.find(
      InvoiceEntity,
      { workspaceId, numberFormat: format, numberPeriod: period, numberSequence: { $gt: afterSequence } },
      { orderBy: { numberSequence: 'asc' }, limit },
    ),
});
