import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { defineEntity, p } from '@mikro-orm/postgresql';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from './database.ts';
import type { KitDatabase } from './kit-entities.ts';
import { sqlOf, type EntityDatabase } from './typed-sql.ts';

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

  const notes = () => sqlOf<NotesDatabase>(orm.em.fork()).selectFrom('Note').selectAll().execute();
  const insertNote = (em = orm.em.fork()) =>
    sqlOf<NotesDatabase>(em).insertInto('Note').values({ id: ID, workspaceId: 'w1', amount: 12, createdAt: new Date('2026-01-02T03:04:05.678Z') }).execute();

  it("names tables and columns as the ORM's metadata does, in the service's schema", () => {
    const query = sqlOf<NotesDatabase>(orm.em.fork()).selectFrom('Note').select(['id', 'workspaceId']).where('createdAt', '<', new Date()).compile();
    expect(query.sql).toBe(`select "id", "workspace_id" from "${SCHEMA}"."notes_v2" where "created_at" < $1`);
  });

  it('returns rows named by the properties, with values converted as the ORM converts them', async () => {
    await insertNote();
    expect(await notes()).toEqual([{ id: ID, workspaceId: 'w1', amount: 12, createdAt: new Date('2026-01-02T03:04:05.678Z') }]);
  });

  it("runs on the transaction of the entity manager it was given: sees the transaction's uncommitted rows, and rolls back with it", async () => {
    const seen: { inside?: number; outside?: number } = {};
    await expect(
      orm.em.fork().transactional(async (tx) => {
        await insertNote(tx);
        seen.inside = (await sqlOf<NotesDatabase>(tx).selectFrom('Note').selectAll().execute()).length;
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

  it("registers the entities of the kit's tables beside the service's, so the kit names them too", () => {
    const outbox = sqlOf<KitDatabase>(orm.em, 'billing').selectFrom('Outbox').select(['subject', 'claimedUntil']).where('publishedAt', 'is', null).compile();
    expect(outbox.sql).toBe('select "subject", "claimed_until" from "billing"."outbox" where "published_at" is null');
    const keyed = sqlOf<KitDatabase>(orm.em).selectFrom('KeyedWrite').select(['workspaceId', 'responseContentType']).compile();
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

  it('reads a column two entities share by the entity the query reads, where the two read it differently', async () => {
    // `amount` is a bigint read as a number in notes, and text in tallies: rows keep the plugin's per-query reading.
    const TallyEntity = defineEntity({ name: 'Tally', tableName: 'tallies', properties: { id: p.uuid().primary(), amount: p.text() } });
    const sut = await openDatabase({ url: database.url, schema: SCHEMA, entities: [NoteEntity, TallyEntity], migrations: [], poolSize: 1 });
    type Both = EntityDatabase<typeof NoteEntity | typeof TallyEntity>;
    try {
      await sut.em.getConnection().execute(`create table ${SCHEMA}.tallies (id uuid primary key, amount text not null)`);
      await insertNote(sut.em.fork());
      await sqlOf<Both>(sut.em.fork()).insertInto('Tally').values({ id: ID, amount: '12' }).execute();
      expect(await sqlOf<Both>(sut.em.fork()).selectFrom('Note').select(['amount', 'workspaceId']).execute()).toEqual([{ amount: 12, workspaceId: 'w1' }]);
      expect(await sqlOf<Both>(sut.em.fork()).selectFrom('Tally').select('amount').execute()).toEqual([{ amount: '12' }]);
    } finally {
      await sut.close();
    }
  });
});
