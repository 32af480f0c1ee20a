import type { EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../../database.ts';
import { GENESIS_CHAIN } from './invoice-integrity.domain.ts';

export interface TakenNumber {
  sequence: number;
  /** The chain value of the invoice before it in the series (GENESIS for the first). */
  previousChain: string;
}

const SERIES = `"${BILLING_SCHEMA}".number_series`;

export const numberSeriesRepository = () => ({
  /**
   * Takes the next sequence value of the series with one atomic upsert, which creates the counter
   * row on first use and otherwise increments it under its row lock. The lock is held until the
   * transaction ends, so finalizations of one series queue here, and a rollback gives the value
   * back: no gap. Call it as late as possible in the transaction.
   */
  takeNextNumber: async (tx: EntityManager, workspaceId: string, format: string, period: string): Promise<TakenNumber> => {
    const [row] = await tx.execute<{ last_value: string; last_chain_sha256: string }[]>(
      `insert into ${SERIES} as s (workspace_id, format, period, last_value, last_chain_sha256) values (?, ?, ?, 1, ?)
       on conflict (workspace_id, format, period) do update set last_value = s.last_value + 1
       returning s.last_value, s.last_chain_sha256`,
      [workspaceId, format, period, GENESIS_CHAIN],
    );
    if (!row) throw new Error('the number series upsert returned no row');
    return { sequence: Number(row.last_value), previousChain: row.last_chain_sha256 };
  },

  /** The chain value of the series' newest invoice, kept beside the counter for the next one. */
  recordChain: async (tx: EntityManager, workspaceId: string, format: string, period: string, chain: string): Promise<void> => {
    await tx.execute(`update ${SERIES} set last_chain_sha256 = ? where workspace_id = ? and format = ? and period = ?`, [chain, workspaceId, format, period]);
  },
});
