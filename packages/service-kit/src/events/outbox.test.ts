import type { EventEnvelope } from '@invoicing/contracts';
import { createTestDatabase, NatsServerProcess, type TestDatabase } from '@invoicing/testing';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type Orm } from '../database.ts';
import { outboxClaimColumnsSql, outboxTableSql } from '../migration-sql.ts';
import type { EventBus } from './event-bus.ts';
import { createInProcessBus } from './in-process-bus.ts';
import { connectJetStreamBus } from './jetstream-bus.ts';
import { makeEnvelope } from './make-envelope.ts';
import { addToOutbox, OutboxRelay, type OutboxRelayOptions } from './outbox.ts';

const SCHEMA = 'relay_test';

const waitFor = async (condition: () => boolean | Promise<boolean>, timeoutMs = 20_000) => {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 25));
  }
};

/** An in-process bus with one consumer of every billing event, recording the event ids it got. */
const recordingBus = async (handle: (envelope: EventEnvelope) => Promise<void> = async () => {}) => {
  const bus = createInProcessBus();
  const received: string[] = [];
  await bus.subscribe({
    durable: 'test',
    subject: 'billing.>',
    handle: async (envelope) => {
      await handle(envelope);
      received.push(envelope.id);
    },
  });
  return { bus, received };
};

describe('outbox relay', () => {
  let database: TestDatabase;
  let orm: Orm;

  beforeAll(async () => {
    database = await createTestDatabase('outbox');
    orm = await openDatabase({ url: database.url, schema: SCHEMA, entities: [], migrations: [], poolSize: 5 });
    await orm.em.getConnection().execute(`create schema ${SCHEMA}`);
    // The table exactly as the services' migrations build it.
    for (const sql of [...outboxTableSql(SCHEMA), ...outboxClaimColumnsSql(SCHEMA)]) await orm.em.getConnection().execute(sql);
  });
  beforeEach(async () => {
    await orm.em.getConnection().execute(`truncate ${SCHEMA}.outbox`);
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  const relayOn = (bus: EventBus, options: Partial<OutboxRelayOptions> = {}) =>
    new OutboxRelay({ orm, schema: SCHEMA, bus, onError: () => {}, pollMs: 20, ...options });

  const commitEvents = async (count: number, rollback = false) => {
    const envelopes = Array.from({ length: count }, (_, i) => makeEnvelope({ data: { i } }));
    await orm.em
      .fork()
      .transactional(async (tx) => {
        for (const envelope of envelopes) await addToOutbox(tx, SCHEMA, envelope);
        if (rollback) throw new Error('rolled back');
      })
      .catch(() => {});
    return envelopes.map((envelope) => envelope.id);
  };

  /** Every statement sent to PostgreSQL while `work` runs, transaction control included. */
  const statementsDuring = async (work: () => Promise<unknown>): Promise<string[]> => {
    const query = pg.Client.prototype.query;
    const statements: string[] = [];
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const [config] = args as [string | { text: string }];
      statements.push(typeof config === 'string' ? config : config.text);
      return (query as (...args: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    try {
      await work().catch(() => {});
    } finally {
      pg.Client.prototype.query = query;
    }
    return statements;
  };

  it('publishes only committed rows, in commit order', async () => {
    const { bus, received } = await recordingBus();
    await commitEvents(3, true);
    const committed = [...(await commitEvents(5)), ...(await commitEvents(5))];
    const relay = relayOn(bus);
    relay.start();
    await waitFor(() => received.length >= committed.length);
    await relay.stop();
    expect(received).toEqual(committed);
    expect((await relay.lag()).pending).toBe(0);
  });

  it('retries a failed publish after the back-off, not after the lease, without holding back the others', async () => {
    let failures = 2;
    const { bus, received } = await recordingBus(async () => {
      if (failures-- > 0) throw new Error('consumer down');
    });
    const committed = await commitEvents(5);
    const relayErrors: string[] = [];
    // A lease far longer than the wait below: the failed rows come back only if their claim was released.
    const relay = relayOn(bus, { leaseMs: 120_000, onError: (error) => relayErrors.push(String(error)) });
    relay.start();
    await waitFor(() => received.length >= committed.length, 5_000);
    await relay.stop();
    expect(relayErrors[0]).toBe('Error: consumer down');
    expect(relayErrors).toHaveLength(1);
    expect(received).toEqual([...committed.slice(2), ...committed.slice(0, 2)]);
    expect((await relay.lag()).pending).toBe(0);
  });

  it('costs one statement to claim a batch and one to mark it, with no transaction around them', async () => {
    let fail = false;
    const { bus, received } = await recordingBus(async () => {
      if (fail) throw new Error('consumer down');
    });
    const relay = relayOn(bus);
    const committed = await commitEvents(3);
    const published = await statementsDuring(() => relay.relayBatch());
    expect(published).toHaveLength(2);
    expect(published.join('\n')).not.toMatch(/\b(begin|commit)\b/i);
    expect(received).toEqual(committed);

    fail = true;
    const failing = await commitEvents(3);
    // Claim, then one statement that marks nothing and releases all three.
    expect(await statementsDuring(() => relay.relayBatch())).toHaveLength(2);
    fail = false;
    // Released, so claimed again at once.
    expect(await statementsDuring(() => relay.relayBatch())).toHaveLength(2);
    expect(received).toEqual([...committed, ...failing]);
    // Nothing left: a poll is one statement.
    expect(await statementsDuring(() => relay.relayBatch())).toHaveLength(1);
  });

  it("takes over a crashed relay's rows once its lease runs out, and loses none", async () => {
    const committed = await commitEvents(10);
    // A relay that claims and then never gets an answer from the bus: as good as dead.
    const crashed = relayOn({ ...createInProcessBus(), publish: () => new Promise<void>(() => {}) }, { leaseMs: 1_000 });
    void crashed.relayBatch();
    const claimedRows = async () =>
      Number((await orm.em.fork().execute<{ n: string }[]>(`select count(*) as n from ${SCHEMA}.outbox where claimed_until > now()`))[0]!.n);
    await waitFor(async () => (await claimedRows()) === 10);

    const { bus, received } = await recordingBus();
    const survivor = relayOn(bus);
    expect(await survivor.relayBatch()).toBe(0);
    survivor.start();
    await waitFor(() => received.length >= committed.length, 10_000);
    await survivor.stop();
    expect(received).toEqual(committed);
    expect((await survivor.lag()).pending).toBe(0);
  });

  it('shares the work between two relays running at once, each row published by one of them', async () => {
    const slowly = async () => new Promise<void>((resolve) => setTimeout(resolve, 2));
    const first = await recordingBus(slowly);
    const second = await recordingBus(slowly);
    const relays = [relayOn(first.bus, { batchSize: 5 }), relayOn(second.bus, { batchSize: 5 })];
    for (const relay of relays) relay.start();
    const committed: string[] = [];
    for (let i = 0; i < 20; i++) {
      committed.push(...(await commitEvents(10)));
      for (const relay of relays) relay.nudge();
    }
    await waitFor(() => first.received.length + second.received.length >= committed.length);
    await new Promise((resolve) => setTimeout(resolve, 200));
    await Promise.all(relays.map((relay) => relay.stop()));

    const all = [...first.received, ...second.received];
    expect(all).toHaveLength(committed.length);
    expect(new Set(all).size).toBe(committed.length);
    expect(first.received.length).toBeGreaterThan(0);
    expect(second.received.length).toBeGreaterThan(0);
    expect((await relays[0]!.lag()).pending).toBe(0);
  });

  it('delivers every committed event through JetStream although NATS stops and starts mid-run', async () => {
    const nats = await NatsServerProcess.launch();
    const received = new Set<string>();
    const bus = await connectJetStreamBus({ url: nats.url, name: 'outbox-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
    try {
      await bus.subscribe({ durable: 'outbox-test', subject: 'billing.invoice.paid', handle: async (e) => void received.add(e.id) });
      const relay = relayOn(bus);
      relay.start();
      const first = await commitEvents(50);
      await nats.stop();
      const second = await commitEvents(50);
      await new Promise((r) => setTimeout(r, 300));
      await nats.start();
      const third = await commitEvents(50);
      const all = [...first, ...second, ...third];
      await waitFor(() => all.every((id) => received.has(id)), 60_000);
      await relay.stop();
      expect(all.filter((id) => !received.has(id))).toEqual([]);
      expect((await relay.lag()).pending).toBe(0);
    } finally {
      await bus.close();
      await nats.dispose();
    }
  }, 90_000);

  it('stores no trace context while tracing is off', async () => {
    await commitEvents(2);
    const rows = await orm.em.fork().execute<{ trace_context: unknown }[]>(`select trace_context from ${SCHEMA}.outbox`);
    expect(rows).toEqual([{ trace_context: null }, { trace_context: null }]);
  });
});
