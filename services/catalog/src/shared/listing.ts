import { decodeCursor, type KeysetPosition } from '@invoicing/service-kit';
import type { QueryBuilder } from '@mikro-orm/postgresql';

/**
 * An `ILIKE` pattern matching `text` anywhere. `%`, `_` and `\` in the search are escaped, so a
 * search for "50%" finds "50%" and not every row with "50".
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** The position after which the page starts: none on the first page, a 400 for a cursor we did not issue. */
export const positionOf = (cursor: string | undefined): KeysetPosition | undefined =>
  cursor === undefined ? undefined : decodeCursor(cursor);

/**
 * Orders a list query newest first by (created, id) and takes `limit + 1` rows after `position`;
 * the extra row only tells whether a next page exists. The position is a row comparison, which
 * PostgreSQL turns into a bound on the (workspace_id, created desc, id desc) indexes, so a deep
 * page costs the same as the first, and rows sharing one `created` are split by id.
 */
export const newestFirstPage = <Row extends KeysetPosition>(qb: QueryBuilder<Row>, position: KeysetPosition | undefined, limit: number) => {
  if (position) qb.andWhere('(created, id) < (?, ?)', [position.created, position.id]);
  return qb.orderBy({ created: 'desc', id: 'desc' }).limit(limit + 1);
};
