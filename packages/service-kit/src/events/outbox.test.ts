import { createTestDatabase, NatsServerProcess, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../database.ts';
import type { EventBus } from './event-bus.ts';
import { createInProcessBus } from './in-process-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';
import { makeEnvelope } from './make-envelope.ts';
import { addToOutbox, OutboxRelay } from './outbox.ts';

const SCHEMA = 'relay_test';

const waitFor = async (condition: () => boolean, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

describe('outbox relay', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase('outbox');
    orm = await openDatabase({ url: database.url, schema: SCHEMA, entities: [], migrations: [], poolSize: 5 });
    await orm.em.getConnection().execute(`create schema ${SCHEMA}`);
    await orm.em.getConnection().execute(
      `create table ${SCHEMA}.outbox (id uuid primary key, subject text not null, envelope jsonb not null, created_at timestamptz not null default clock_timestamp(), published_at timestamptz)`,
    );
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const commitEvents = async (count: number, rollback = false) => {
    const envelopes = Array.from({ length: count }, (_, i) => makeEnvelope({ data: { i } }));
    await orm.em
      .fork()
      .transactional(async (tx) => {
        for (const envelope of envelopes) await addToOutbox(tx, SCHEMA, envelope);
        if (rollback) throw new Error('rolled back');
      })
      .catch(() => {});
    return envelopes;
  };

  it('publishes only committed rows, in order, and retries a failing publish without losing any', async () => {
    let failNext = 2;
    const seen: unknown[] = [];
    const bus: EventBus = createInProcessBus();
    await bus.subscribe({
      durable: 'test',
      subject: 'billing.>',
      handle: async (envelope) => {
        if (failNext-- > 0) throw new Error('consumer down');
        seen.push((envelope.data as { i: number }).i);
      },
    });
    await commitEvents(3, true);
    await commitEvents(5);
    const relayErrors: string[] = [];
    const relay = new OutboxRelay({ orm, schema: SCHEMA, bus, onError: (e) => relayErrors.push(String(e)), pollMs: 20 });
    relay.start();
    await waitFor(() => seen.length >= 5);
    await waitFor(() => relayErrors.length >= 2);
    await relay.stop();
    expect(relayErrors).toEqual(['Error: consumer down', 'Error: consumer down']);
    expect(seen).toEqual([0, 1, 2, 3, 4]);
    expect((await relay.lag()).pending).toBe(0);
  });

  it('delivers every committed event through JetStream although NATS stops and starts mid-run', async () => {
    const nats = await NatsServerProcess.launch();
    const received = new Set<string>();
    const bus = await connectJetStreamBus({ url: nats.url, name: 'outbox-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
    try {
      await bus.subscribe({ durable: 'outbox-test', subject: 'billing.invoice.paid', handle: async (e) => void received.add(e.id) });
      const relay = new OutboxRelay({ orm, schema: SCHEMA, bus, onError: () => {}, pollMs: 20 });
      relay.start();
      const first = await commitEvents(50);
      await nats.stop();
      const second = await commitEvents(50);
      await new Promise((r) => setTimeout(r, 300));
      await nats.start();
      const third = await commitEvents(50);
      const all = [...first, ...second, ...third].map((e) => e.id);
      await waitFor(() => all.every((id) => received.has(id)), 60_000);
      await relay.stop();
      expect(all.filter((id) => !received.has(id))).toEqual([]);
      expect((await relay.lag()).pending).toBe(0);
    } finally {
      await bus.close();
      await nats.dispose();
    }
  }, 90_000);
});
