import type { Metadata } from '@invoicing/contracts';
import type { QueryBuilder } from '@mikro-orm/postgresql';

/**
 * A `created[gte]`/`created[lte]` bound: a datetime as given, or a date as the first (`start`) or
 * last (`end`) millisecond of that day in UTC.
 */
export const timeBound = (value: string | undefined, end: 'start' | 'end'): Date | undefined => {
  if (value === undefined) return undefined;
  if (value.length > 10) return new Date(value);
  return new Date(end === 'start' ? `${value}T00:00:00.000Z` : `${value}T23:59:59.999Z`);
};

/**
 * Keeps the rows whose `metadata` holds every pair of `filter` (jsonb `@>`, which the table's
 * GIN index on (workspace_id, metadata) serves beside the workspace filter); no filter keeps all.
 */
export const whereMetadataHolds = <Row extends object>(qb: QueryBuilder<Row>, filter: Metadata | undefined): void => {
  if (filter !== undefined) qb.andWhere({ metadata: { $contains: filter } } as never);
};
