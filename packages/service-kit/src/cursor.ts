import { z } from 'zod';
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

/** Where-clause fragment for the rows after `position` in (created desc, id desc) order. */
export const olderThan = (position: KeysetPosition | undefined) =>
  position
    ? { $or: [{ created: { $lt: position.created } }, { created: position.created, id: { $lt: position.id } }] }
    : {};
