import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AppError } from './app-error.ts';
import { containsPattern, createCursorCodec, type KeysetPosition } from './cursor.ts';

describe('containsPattern', () => {
  it.each([
    ['acme', '%acme%'],
    ['100%', '%100\\%%'],
    ['a_b', '%a\\_b%'],
    ['C:\\path', '%C:\\\\path%'],
    ['%_\\', '%\\%\\_\\\\%'],
  ])('matches %j literally anywhere: %j', (search, pattern) => {
    expect(containsPattern(search)).toBe(pattern);
  });
});

describe('createCursorCodec', () => {
  const SECRET = 'cursor-test-internal-token-0123456789';
  const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
  const OTHER_WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697888';
  const makeRow = (minute: number): KeysetPosition => ({
    created: new Date(Date.UTC(2026, 0, 1, 0, minute)),
    id: `0190f3e2-c1b2-7a8e-9d1f-${String(minute).padStart(12, '0')}`,
  });
  const rows = [makeRow(3), makeRow(2), makeRow(1)];
  const sut = createCursorCodec(SECRET).forList('customers', WORKSPACE);
  /** The cursor after the first two rows, as the list issues it. */
  const issued = sut.toPage(rows, 2, (row) => row.id).next_cursor!;

  const expectRefused = (read: () => unknown) => {
    let thrown: unknown;
    try {
      read();
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(AppError);
    expect(thrown).toMatchObject({ code: 'invalid_request', message: 'cursor was not issued by this API.', errors: [{ path: 'cursor' }] });
  };

  it('pages: the limit rows, and a cursor only when a further row exists', () => {
    expect(sut.toPage(rows, 2, (row) => row.id)).toEqual({ data: [rows[0]!.id, rows[1]!.id], next_cursor: expect.any(String) });
    expect(sut.toPage(rows, 3, (row) => row.id)).toEqual({ data: rows.map((row) => row.id), next_cursor: null });
    expect(sut.toPage([] as KeysetPosition[], 3, (row) => row.id)).toEqual({ data: [], next_cursor: null });
  });

  it('reads back the position of the last row of the page it issued', () => {
    expect(sut.positionOf(issued)).toEqual(rows[1]);
    expect(sut.positionOf(undefined)).toBeUndefined();
  });

  it('reads a cursor issued by another replica sharing the secret', () => {
    expect(createCursorCodec(SECRET).forList('customers', WORKSPACE).positionOf(issued)).toEqual(rows[1]);
  });

  it.each([
    ['another list', () => createCursorCodec(SECRET).forList('products', WORKSPACE)],
    ['the same list in another workspace', () => createCursorCodec(SECRET).forList('customers', OTHER_WORKSPACE)],
    ['a codec with another secret (a rotated token)', () => createCursorCodec(`${SECRET}-rotated`).forList('customers', WORKSPACE)],
  ])('refuses it on %s', (_, other) => {
    expectRefused(() => other().positionOf(issued));
  });

  it('refuses it with its position changed, the tag kept', () => {
    const [, tag] = issued.split('.');
    const moved = Buffer.from(JSON.stringify([rows[0]!.created.toISOString(), rows[0]!.id])).toString('base64url');
    expectRefused(() => sut.positionOf(`${moved}.${tag}`));
  });

  it.each([
    ['empty', ''],
    ['not a cursor', 'not-a-cursor'],
    ['unsigned, as cursors once were', issued.split('.')[0]!],
    ['cut short', issued.slice(0, -1)],
    ['its tag cut short', issued.slice(0, -4)],
    ['a character appended', `${issued}A`],
    ['a part appended', `${issued}.x`],
    ['no position', `.${issued.split('.')[1]}`],
    ['a tag of zeros', `${issued.split('.')[0]}.${Buffer.alloc(16).toString('base64url')}`],
    ['NUL bytes', '\u0000\u0001'],
  ])('refuses garbage: %s', (_, cursor) => {
    expectRefused(() => sut.positionOf(cursor));
  });

  it('refuses a correctly tagged value that is not a position, as a 400 rather than a crash', () => {
    // Only someone holding the secret could make this; it proves a parse failure still reads as a 400.
    const key = createHmac('sha256', SECRET).update('cursor-signing').digest();
    const position = Buffer.from('["yesterday","x"]').toString('base64url');
    const tag = createHmac('sha256', key).update(JSON.stringify(['customers', WORKSPACE, position])).digest().subarray(0, 16).toString('base64url');
    expectRefused(() => sut.positionOf(`${position}.${tag}`));
  });
});
