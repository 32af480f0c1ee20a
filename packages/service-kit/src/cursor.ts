import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { raw, type QueryBuilder } from '@mikro-orm/postgresql';
import { invalidRequest } from './app-error.ts';

/** The position after the last row of a page, ordered newest first by (created, id). */
export interface KeysetPosition {
  created: Date;
  id: string;
}

const Encoded = z.tuple([z.iso.datetime(), z.uuid()]);

/** 16 bytes of HMAC-SHA256: forging one means guessing 128 bits. */
const TAG_BYTES = 16;

const unrecognised = () => invalidRequest('cursor was not issued by this API.', [{ path: 'cursor', message: 'unrecognised cursor' }]);

/** A list page: the rows' views and the cursor of the next page, null on the last page. */
export interface ListPage<View> {
  data: View[];
  next_cursor: string | null;
}

/** The cursors of one list, as one workspace sees it: each is valid only there. */
export interface ListCursors {
  /** The position after which the page starts: none on the first page, a 400 for a cursor this list did not issue. */
  positionOf: (cursor: string | undefined) => KeysetPosition | undefined;
  /**
   * Builds a page from rows fetched with `limit + 1`: the extra row only says whether another
   * page exists, so `next_cursor` is null exactly on the last page.
   */
  toPage: <Row extends KeysetPosition, View>(rows: Row[], limit: number, view: (row: Row) => View) => ListPage<View>;
}

export interface CursorCodec {
  /**
   * The cursors of the list `name` (e.g. `customers`, `invoices/<id>/timeline`) in `workspaceId`.
   * A cursor names a position and carries a tag over (list, workspace, position), so one
   * made by hand, cut short, or issued for another list or workspace is a 400.
   */
  forList: (name: string, workspaceId: string) => ListCursors;
}

/**
 * Signs and checks list cursors with a key derived from `secret`. Pass the service's
 * INTERNAL_TOKEN: every replica already shares it, so a cursor from one replica pages on any
 * other, and rotating the token just invalidates outstanding cursors (a client starts over from
 * the first page). The key is derived under its own label rather than the token used as is, so a
 * cursor tag is never a value that anything else keyed by the token would accept.
 */
export const createCursorCodec = (secret: string): CursorCodec => {
  const key = createHmac('sha256', secret).update('cursor-signing').digest();
  // JSON keeps the three parts apart whatever characters they hold.
  const tagOf = (name: string, workspaceId: string, position: string): string =>
    createHmac('sha256', key).update(JSON.stringify([name, workspaceId, position])).digest().subarray(0, TAG_BYTES).toString('base64url');

  return {
    forList: (name, workspaceId) => {
      const encode = ({ created, id }: KeysetPosition): string => {
        const position = Buffer.from(JSON.stringify([created.toISOString(), id])).toString('base64url');
        return `${position}.${tagOf(name, workspaceId, position)}`;
      };

      // The tag is checked before the position is parsed, so nothing a client made up is ever read.
      const decode = (cursor: string): KeysetPosition => {
        const [position, tag, ...rest] = cursor.split('.');
        if (position === undefined || tag === undefined || rest.length > 0) throw unrecognised();
        const given = Buffer.from(tag);
        const expected = Buffer.from(tagOf(name, workspaceId, position));
        if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw unrecognised();
        try {
          const [created, id] = Encoded.parse(JSON.parse(Buffer.from(position, 'base64url').toString('utf8')));
          return { created: new Date(created), id };
        } catch {
          throw unrecognised();
        }
      };

      return {
        positionOf: (cursor) => (cursor === undefined ? undefined : decode(cursor)),
        toPage: (rows, limit, view) => {
          const pageRows = rows.slice(0, limit);
          const last = pageRows.at(-1);
          return { data: pageRows.map(view), next_cursor: rows.length > limit && last ? encode(last) : null };
        },
      };
    },
  };
};

/**
 * Orders a list query newest first by (created, id) and takes `limit + 1` rows after `position`;
 * the extra row only tells whether a next page exists. The position is a row comparison, which
 * PostgreSQL turns into a bound on a (workspace_id, created desc, id desc) index, so a deep
 * page costs the same as the first, and rows sharing one `created` are split by id. A table whose
 * creation time is not `created` names its property (billing's `createdAt`); the ORM's metadata
 * gives the columns.
 */
export const newestFirstPage = <Row extends object>(
  qb: QueryBuilder<Row>,
  position: KeysetPosition | undefined,
  limit: number,
  property = 'created',
) => {
  if (position) {
    // A tuple of properties: the ORM writes their columns as a row comparison.
    qb.andWhere({ [raw([property, 'id'])]: { $lt: [position.created, position.id] } } as never);
  }
  return qb.orderBy({ [property]: 'desc', id: 'desc' } as never).limit(limit + 1);
};

/**
 * An `ILIKE` pattern matching `text` anywhere. `%`, `_` and `\` in the search are escaped, so a
 * search for "50%" finds "50%" and not every row with "50".
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;
