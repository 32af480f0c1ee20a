import { decodeCursor, type KeysetPosition } from '@invoicing/service-kit';

/**
 * An `ILIKE` pattern matching `text` anywhere. `%`, `_` and `\` in the search are escaped, so a
 * search for "50%" finds "50%" and not every row with "50".
 */
export const containsPattern = (text: string): string => `%${text.replace(/[\\%_]/g, '\\$&')}%`;

/** The position after which the page starts: none on the first page, a 400 for a cursor we did not issue. */
export const positionOf = (cursor: string | undefined): KeysetPosition | undefined =>
  cursor === undefined ? undefined : decodeCursor(cursor);
