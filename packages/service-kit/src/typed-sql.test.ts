import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { defineEntity, p } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from './database.ts';
import type { KitDatabase } from './kit-entities.ts';
import { entityColumns, entityRows, sqlOf, type EntityDatabase } from './typed-sql.ts';

const SCHEMA = 'typed_sql_test';

/** Names unlike its table's on purpose: the entity, the table and two columns differ. */
const NoteEntity = defineEntity({
  name: 'Note',
  tableName: 'notes_v2',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.text(),
    amount: p.bigint('number'),
    createdAt: p.datetime(),
  },
});
type NotesDatabase = EntityDatabase<typeof NoteEntity>;

const ID = '00000000-0000-4000-8000-000000000001';

describe('sqlOf', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase('typed_sql');
    orm = await openDatabase({ url: database.url, schema: SCHEMA, entities: [NoteEntity], migrations: [], poolSize: 3 });
    await orm.em.getConnection().execute(`create schema ${SCHEMA}`);
    await orm.em.getConnection().execute(`create table ${SCHEMA}.notes_v2 (id uuid primary key, workspace_id text not null, amount bigint not null, created_at timestamptz not null)`);
  });
  beforeEach(async () => {
    await orm.em.getConnection().execute(`truncate ${SCHEMA}.notes_v2`);
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const notes = async () => entityRows(orm.em, NoteEntity, await sqlOf<NotesDatabase>(orm.em.fork()).selectFrom('notes_v2').selectAll().execute());
  const note = { id: ID, workspaceId: 'w1', amount: 12, createdAt: new Date('2026-01-02T03:04:05.678Z') };
  const insertNote = (em = orm.em.fork()) => sqlOf<NotesDatabase>(em).insertInto('notes_v2').values(entityColumns(em, NoteEntity, note)).execute();

  it("names tables and columns as the schema does, in the service's schema, and sends the statement as built", () => {
    const query = sqlOf<NotesDatabase>(orm.em.fork()).selectFrom('notes_v2').select(['id', 'workspace_id']).where('created_at', '<', new Date()).compile();
    expect(query.sql).toBe(`select "id", "workspace_id" from "${SCHEMA}"."notes_v2" where "created_at" < $1`);
  });

  it('writes an entity row through the ORM\'s conversions, and reads it back as the ORM reads the entity', async () => {
    expect(entityColumns(orm.em, NoteEntity, note)).toEqual({ id: ID, workspace_id: 'w1', amount: '12', created_at: note.createdAt });
    await insertNote();
    const [read] = await notes();
    expect({ ...read }).toEqual(note);
  });

  it('returns what the driver returns for a statement that is not entity rows', async () => {
    await insertNote();
    const row = await sqlOf<NotesDatabase>(orm.em.fork()).selectFrom('notes_v2').select(['amount', 'workspace_id']).executeTakeFirstOrThrow();
    // bigint is text on the wire: a caller that wants a number casts in SQL or converts the one column.
    expect(row).toEqual({ amount: '12', workspace_id: 'w1' });
  });

  it('reads rows detached: two reads of one row are two objects, and no flush writes a change to one', async () => {
    await insertNote();
    const em = orm.em.fork();
    const rows = await sqlOf<NotesDatabase>(em).selectFrom('notes_v2').selectAll().execute();
    const [first] = entityRows(em, NoteEntity, rows);
    const [second] = entityRows(em, NoteEntity, rows);
    expect(first).not.toBe(second);
    first!.amount = 99;
    await em.flush();
    expect((await notes())[0]!.amount).toBe(12);
  });

  it("runs on the transaction of the entity manager it was given: sees the transaction's uncommitted rows, and rolls back with it", async () => {
    const seen: { inside?: number; outside?: number } = {};
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await insertNote(tx);
        seen.inside = (await sqlOf<NotesDatabase>(tx).selectFrom('notes_v2').selectAll().execute()).length;
        seen.outside = (await notes()).length;
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(seen).toEqual({ inside: 1, outside: 0 });
    expect(await notes()).toEqual([]);
  });

  it("follows the global entity manager into the transaction it runs in, as the kit's keyed writes use it", async () => {
    await orm.em.transactional(async () => {
      await insertNote(orm.em);
      expect(await notes()).toEqual([]);
    });
    expect(await notes()).toHaveLength(1);
  });

  it("names the kit's tables in the schema its caller gives", () => {
    const outbox = sqlOf<KitDatabase>(orm.em, 'billing').selectFrom('outbox').select(['subject', 'claimed_until']).where('published_at', 'is', null).compile();
    expect(outbox.sql).toBe('select "subject", "claimed_until" from "billing"."outbox" where "published_at" is null');
    const keyed = sqlOf<KitDatabase>(orm.em).selectFrom('idempotency_records').select(['workspace_id', 'response_content_type']).compile();
    expect(keyed.sql).toBe(`select "workspace_id", "response_content_type" from "${SCHEMA}"."idempotency_records"`);
  });

  it("leaves out a kit entity whose table one of the service's entities maps already (the gateway's idempotency records)", async () => {
    const OwnRecords = defineEntity({ name: 'OwnRecord', tableName: 'idempotency_records', properties: { id: p.uuid().primary() } });
    const sut = await openDatabase({ url: database.url, schema: 'own', entities: [OwnRecords], migrations: [], poolSize: 1 });
    try {
      expect(sut.getMetadata().getByClassName('KeyedWrite', false)).toBeUndefined();
      expect(sut.getMetadata().getByClassName('Outbox', false)).toBeDefined();
    } finally {
      await sut.close();
    }
  });
});
