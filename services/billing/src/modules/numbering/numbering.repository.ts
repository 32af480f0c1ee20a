import { sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
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

export const numberingRepository = (em: EntityManager) => ({
  /**
   * Takes the next `count` numbers of the series inside `tx`; its counter row stays locked until `tx` ends.
   * One atomic upsert moves the counter by `count` and locks its row; the chain value it returns is
   * the one before (the statement leaves it), which the transaction then carries forward onto the
   * numbers it took (setChainHead).
   */
  takeNumbers: async (tx: EntityManager, series: Series, count: number): Promise<TakenNumbers> => {
    const { lastValue, lastChainSha256 } = await sqlOf<BillingDatabase>(tx)
      .insertInto('NumberSeries')
      .values({ workspaceId: series.workspaceId, format: series.format, period: series.period, lastValue: count, lastChainSha256: GENESIS_CHAIN })
      .onConflict((oc) =>
        oc.columns(['workspaceId', 'format', 'period']).doUpdateSet((eb) => ({ lastValue: eb('NumberSeries.lastValue', '+', eb.ref('excluded.lastValue')) })),
      )
      .returning(['NumberSeries.lastValue', 'NumberSeries.lastChainSha256'])
      .executeTakeFirstOrThrow();
    return { first: lastValue - count + 1, previousChain: lastChainSha256 };
  },

  /** Every counter of the workspace beside a recount of the invoices holding its numbers. */
  seriesWithCounts: async (workspaceId: string): Promise<SeriesCount[]> => {
    const rows = await sqlOf<BillingDatabase>(em)
      .selectFrom('NumberSeries as s')
      .leftJoin('Invoice as i', (join) => join.onRef('i.workspaceId', '=', 's.workspaceId').onRef('i.numberFormat', '=', 's.format').onRef('i.numberPeriod', '=', 's.period'))
      .select((eb) => [
        's.format',
        's.period',
        's.lastValue',
        's.lastChainSha256',
        eb.fn.count('i.id').as('issued'),
        eb.fn.min('i.numberSequence').as('firstSequence'),
        eb.fn.max('i.numberSequence').as('lastSequence'),
      ])
      .where('s.workspaceId', '=', workspaceId)
      .groupBy(['s.format', 's.period', 's.lastValue', 's.lastChainSha256'])
      .orderBy('s.period', 'desc')
      .orderBy('s.format')
      .execute();
    // Aggregates are bigint, which node-postgres reads as text.
    return rows.map((row) => ({
      format: row.format,
      period: row.period,
      lastValue: row.lastValue,
      lastChain: row.lastChainSha256,
      issued: Number(row.issued),
      firstSequence: row.firstSequence === null ? null : Number(row.firstSequence),
      lastSequence: row.lastSequence === null ? null : Number(row.lastSequence),
    }));
  },

  /** Runs of missing sequence values between (and before) the numbers held, found in one pass. */
  internalGaps: async (workspaceId: string): Promise<SequenceGap[]> => {
    const rows = await sqlOf<BillingDatabase>(em)
      .selectFrom((db) =>
        db
          .selectFrom('Invoice')
          .select((eb) => [
            'numberFormat',
            'numberPeriod',
            'numberSequence',
            eb.fn
              .agg<number>('lag', ['numberSequence', eb.lit(1), sql<number>`0::bigint`])
              .over((over) => over.partitionBy(['numberFormat', 'numberPeriod']).orderBy('numberSequence'))
              .as('previous'),
          ])
          .where('workspaceId', '=', workspaceId)
          .where('numberSequence', 'is not', null)
          .as('held'),
      )
      .select((eb) => [
        eb.ref('held.numberFormat').as('format'),
        eb.ref('held.numberPeriod').as('period'),
        eb('held.previous', '+', eb.lit(1)).as('first'),
        eb('held.numberSequence', '-', eb.lit(1)).as('last'),
      ])
      .where((eb) => eb('held.numberSequence', '>', eb('held.previous', '+', eb.lit(1))))
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
