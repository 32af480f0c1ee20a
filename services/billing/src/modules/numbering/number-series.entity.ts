import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

/**
 * The counter of one series: (workspace, format, period). Only finalize changes it, with a single
 * atomic upsert; it is never reset, so going back to an earlier format continues where it stopped.
 */
export const NumberSeriesEntity = defineEntity({
  name: 'NumberSeries',
  tableName: 'number_series',
  properties: {
    workspaceId: p.uuid().primary(),
    format: p.text().primary(),
    period: p.text().primary(),
    lastValue: p.bigint('number'),
    lastChainSha256: p.string().length(64),
  },
});
export type NumberSeriesRow = InferEntity<typeof NumberSeriesEntity>;
