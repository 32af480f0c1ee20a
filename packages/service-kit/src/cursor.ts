import { z } from 'zod';
import type { QueryBuilder } from '@mikro-orm/postgresql';
import { invalidRequest } from './app-error.ts';

/** The position after the last row of a page, ordered newest first by (created, id). */
export interface KeysetPosition {
  created: Date;
  id: string;
}

const Encoded = z.tuple([z.iso.datetime(), z.uuid()]);

export const encodeCursor = ({ created, id }: KeysetPosition): string =>
  Buffer.from(JSON.stringify([created.toISOString(), id])).toString('base64url');

/** Decodes a `next_cursor` this API issued; anything else is a 400. */
export const decodeCursor = (cursor: string): KeysetPosition => {
  try {
    const [created, id] = Encoded.parse(JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')));
    return { created: new Date(created), id };
  } catch {
    throw invalidRequest('cursor was not issued by this API.', [{ path: 'cursor', message: 'unrecognised cursor' }]);
  }
};

/**
 * Builds a page from rows fetched with `limit + 1`: the extra row only says whether
 * another page exists, so `next_cursor` is null exactly on the last page.
 */
export const toPage = <Row extends KeysetPosition, View>(rows: Row[], limit: number, view: (row: Row) => View) => {
  const pageRows = rows.slice(0, limit);
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(view),
    next_cursor: rows.length > limit && last ? encodeCursor(last) : null,
  };
};

/** The position after which the page starts: none on the first page, a 400 for a cursor we did not issue. */
export const positionOf = (cursor: string | undefined): KeysetPosition | undefined =>
  cursor === undefined ? undefined : decodeCursor(cursor);

/**
 * Orders a list query newest first by (created, id) and takes `limit + 1` rows after `position`;
 * the extra row only tells whether a next page exists. The position is a row comparison, which
 * PostgreSQL turns into a bound on a (workspace_id, created desc, id desc) index, so a deep
 * page costs the same as the first, and rows sharing one `created` are split by id.
 */
export const newestFirstPage = <Row extends KeysetPosition>(qb: QueryBuilder<Row>, position: KeysetPosition | undefined, limit: number) => {
  if (position) qb.andWhere('(created, id) < (?, ?)', [position.created, position.id]);
  return qb.orderBy({ created: 'desc', id: 'desc' } as never).limit(limit + 1);
};

/**
 * An `ILIKE` pattern matching `text` anywhere. `%`, `_` and `\` in the search are escaped, so a
 * search for "50%" finds "50%" and not every row with "50".
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
