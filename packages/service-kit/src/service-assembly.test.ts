import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from './database.ts';
import { createInProcessBus } from './events/in-process-bus.ts';
import { makeEnvelope } from './events/make-envelope.ts';
import { addToOutbox } from './events/outbox.ts';
import { createServiceApp } from './http-app.ts';
import { outboxClaimColumnsSql, outboxTableSql } from './migration-sql.ts';
import { assembleService } from './service-assembly.ts';

const SCHEMA = 'assembly_test';
const TOKEN = 'assembly-test-internal-token-0123456789';

describe('service assembly', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('assembly');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('relays the outbox once started, starts the workers after the relay, and on close stops them newest first, then closes what the service listed, then the pool', async () => {
    const steps: string[] = [];
    const bus = createInProcessBus();
    const received: string[] = [];
    await bus.subscribe({ durable: 'test', subject: 'billing.>', handle: async (envelope) => void received.push(envelope.id) });
    const worker = (name: string) => ({ start: () => void steps.push(`start ${name}`), stop: async () => void steps.push(`stop ${name}`) });
    const sut = await assembleService(
      {
        name: 'assembly-test',
        bus,
        logLevel: 'silent',
        database: { url: database.url, poolSize: 2, schema: SCHEMA, open: (url, poolSize) => openDatabase({ url, schema: SCHEMA, entities: [], migrations: [], poolSize }) },
        outbox: { pollMs: 60_000, nudgeDelayMs: 5 },
      },
      ({ orm, logger, checkReadiness, announce }) => ({
        app: createServiceApp({ name: 'assembly-test', logger, internalToken: TOKEN, orm, checkReadiness }),
        announce,
        workers: [worker('first'), worker('second')],
        closeAfterWorkers: [{ close: async () => void steps.push(`close client, pool ${(await sut.orm.isConnected()) ? 'open' : 'closed'}`) }, undefined],
      }),
    );
    await sut.prepareDatabase();
    for (const sql of [...outboxTableSql(SCHEMA), ...outboxClaimColumnsSql(SCHEMA)]) await sut.orm.em.getConnection().execute(sql);
    expect((await sut.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await sut.startWorkers();
    expect(steps).toEqual(['start first', 'start second']);

    // Announced, the event goes out long before the relay's poll would find it.
    const event = makeEnvelope();
    await sut.orm.em.fork().transactional((tx) => addToOutbox(tx, SCHEMA, event));
    sut.announce();
    sut.announce();
    await expect.poll(() => received, { timeout: 5_000 }).toEqual([event.id]);
    const metrics = await sut.app.inject({ url: '/metrics' });
    expect(metrics.body).toMatch(/^outbox_pending_events(\{[^}]*\})? 0$/m);

    await sut.stop();
    expect(steps).toEqual(['start first', 'start second', 'stop second', 'stop first', 'close client, pool open']);
    expect(await sut.orm.isConnected()).toBe(false);
  });
});
