import type { EventEnvelope } from '@invoicing/contracts';
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { NatsServerProcess } from '@invoicing/testing';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventBus } from './event-bus.ts';
import { connectJetStreamBus, type JetStreamBusOptions } from './jetstream-bus.ts';
import { makeEnvelope } from './make-envelope.ts';

// Each test has a nats-server of its own: stream and durable names are global on a server.
const servers: NatsServerProcess[] = [];
const buses: EventBus[] = [];

const launchNats = async (): Promise<NatsServerProcess> => {
  const nats = await NatsServerProcess.launch();
  servers.push(nats);
  return nats;
};

const openBus = async (options: Partial<JetStreamBusOptions> & { url: string }): Promise<EventBus> => {
  const bus = await connectJetStreamBus({ name: 'bus-test', replicas: 1, maxAgeMs: 3600_000, onError: () => {}, ...options });
  buses.push(bus);
  return bus;
};

const receiver = () => {
  const received: EventEnvelope[] = [];
  return { received, handle: async (envelope: EventEnvelope) => void received.push(envelope) };
};

afterEach(async () => {
  await Promise.all(buses.splice(0).map((bus) => bus.close()));
  await Promise.all(servers.splice(0).map((nats) => nats.dispose()));
});

describe('a JetStream bus created while NATS is down', () => {
  it('says NATS is unreachable, refuses publishing quickly, accepts consumers, and connects by itself once NATS starts', async () => {
    const nats = await launchNats();
    await nats.stop();
    const errors: Array<{ message: string; context: string }> = [];
    const notices: string[] = [];
    const consumer = receiver();
    const bus = await openBus({
      url: nats.url,
      onError: (error, context) => errors.push({ message: String(error), context }),
      log: (message) => notices.push(message),
    });

    await expect(bus.ping()).rejects.toThrow(`NATS at ${nats.url} is unreachable`);
    const publishing = Date.now();
    await expect(bus.publish(makeEnvelope())).rejects.toThrow(`NATS at ${nats.url} is unreachable`);
    expect(Date.now() - publishing).toBeLessThan(3_000);
    await bus.subscribe({ durable: 'late-consumer', subject: 'billing.invoice.paid', handle: consumer.handle });

    // Several attempts fail meanwhile (the backoff starts at a quarter second), yet they make one line, not one each.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    await nats.start();
    await expect.poll(() => bus.ping().then(() => 'ready', (error: Error) => error.message), { timeout: 10_000 }).toBe('ready');

    const publisher = await openBus({ url: nats.url, name: 'publisher' });
    const event = makeEnvelope();
    await publisher.publish(event);
    await expect.poll(() => consumer.received.map((envelope) => envelope.id), { timeout: 10_000 }).toEqual([event.id]);
    await bus.publish(makeEnvelope());
    await expect.poll(() => consumer.received.length, { timeout: 10_000 }).toBe(2);

    const unreachableLines = errors.filter(({ context }) => context === 'connection');
    expect(unreachableLines).toHaveLength(1);
    expect(unreachableLines[0]?.message).toMatch(new RegExp(`NATS at ${nats.url} unreachable, retrying \\(attempt 1, down for 0 s\\)`));
    expect(notices).toEqual([expect.stringMatching(new RegExp(`^connected to NATS at ${nats.url} after \\d+ s unreachable$`))]);
  });

  it('reports again at its interval while NATS stays away, counting the attempts', async () => {
    const nats = await launchNats();
    await nats.stop();
    const lines: string[] = [];
    await openBus({ url: nats.url, unreachableLogIntervalMs: 1_000, onError: (error, context) => void (context === 'connection' && lines.push(String(error))) });
    await expect.poll(() => lines.length, { timeout: 5_000 }).toBeGreaterThanOrEqual(2);
    expect(lines[0]).toMatch(/attempt 1, down for 0 s/);
    const [, laterAttempt, downForS] = /attempt (\d+), down for (\d+) s/.exec(lines[1] ?? '') ?? [];
    expect(Number(laterAttempt)).toBeGreaterThan(2);
    expect(Number(downForS)).toBeGreaterThanOrEqual(1);
  });

  it('closes at once before it ever connected, and stays closed when NATS starts afterwards', async () => {
    const nats = await launchNats();
    await nats.stop();
    const consumer = receiver();
    const bus = await connectJetStreamBus({ url: nats.url, name: 'closed-early', replicas: 1, maxAgeMs: 3600_000, onError: () => {} });
    await bus.subscribe({ durable: 'closed-early', subject: 'billing.invoice.paid', handle: consumer.handle });
    const closing = Date.now();
    await bus.close();
    expect(Date.now() - closing).toBeLessThan(1_000);

    await nats.start();
    const nc = await connect({ servers: nats.url });
    try {
      // It would have made its streams on connecting.
      const streams = await (await jetstreamManager(nc)).streams.names().next();
      expect(streams).toEqual([]);
    } finally {
      await nc.close();
    }
    await expect(bus.ping()).rejects.toThrow(/closed/);
  });
});

describe('a JetStream bus whose NATS goes away later', () => {
  it('is not ready while NATS is down, says so once, and heals: ready again, and its consumer receives what is published after', async () => {
    const nats = await launchNats();
    const lines: string[] = [];
    const consumer = receiver();
    const bus = await openBus({ url: nats.url, onError: (error, context) => void (context === 'connection' && lines.push(String(error))) });
    await bus.subscribe({ durable: 'outage-consumer', subject: 'billing.invoice.paid', handle: consumer.handle });
    await bus.ping();

    await nats.stop();
    await expect.poll(() => bus.ping().then(() => 'ready', (error: Error) => error.message), { timeout: 10_000 }).toMatch(`NATS at ${nats.url} is unreachable`);
    await expect(bus.publish(makeEnvelope())).rejects.toThrow(`NATS at ${nats.url} is unreachable`);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await nats.start();
    await expect.poll(() => bus.ping().then(() => 'ready', (error: Error) => error.message), { timeout: 10_000 }).toBe('ready');

    const event = makeEnvelope();
    await bus.publish(event);
    await expect.poll(() => consumer.received.map((envelope) => envelope.id), { timeout: 15_000 }).toEqual([event.id]);
    expect(lines).toEqual([expect.stringMatching(new RegExp(`NATS at ${nats.url} unreachable, retrying \\(attempt 1, down for \\d+ s\\): connection lost$`))]);
  });
});

describe('NATS_PREFIX: deployments sharing one NATS server', () => {
  it('keeps each platform to its own events, though their consumers have the same durable name and subject', async () => {
    const nats = await launchNats();
    const alpha = receiver();
    const beta = receiver();
    const alphaBus = await openBus({ url: nats.url, prefix: 'alpha' });
    const betaBus = await openBus({ url: nats.url, prefix: 'beta-2' });
    await alphaBus.subscribe({ durable: 'notifications-billing', subject: 'billing.>', handle: alpha.handle });
    await betaBus.subscribe({ durable: 'notifications-billing', subject: 'billing.>', handle: beta.handle });

    const alphaEvents = [makeEnvelope(), makeEnvelope({ type: 'billing.invoice.finalized' })];
    const betaEvents = [makeEnvelope()];
    for (const event of alphaEvents) await alphaBus.publish(event);
    for (const event of betaEvents) await betaBus.publish(event);

    await expect.poll(() => alpha.received.length + beta.received.length, { timeout: 10_000 }).toBe(3);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(alpha.received).toEqual(alphaEvents);
    expect(beta.received).toEqual(betaEvents);

    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.names().next()).sort()).toEqual(['alpha_BILLING', 'alpha_DOCUMENTS', 'alpha_SUBSCRIPTIONS', 'beta-2_BILLING', 'beta-2_DOCUMENTS', 'beta-2_SUBSCRIPTIONS']);
      expect((await jsm.streams.info('alpha_BILLING')).config.subjects).toEqual(['alpha.billing.>']);
      const consumer = await jsm.consumers.info('beta-2_BILLING', 'beta-2_notifications-billing');
      expect(consumer.config.filter_subject).toBe('beta-2.billing.>');
    } finally {
      await nc.close();
    }
  });

  it('without a prefix uses the names deployments have always had', async () => {
    const nats = await launchNats();
    const bus = await openBus({ url: nats.url });
    await bus.subscribe({ durable: 'documents-finalized', subject: 'billing.invoice.finalized', handle: async () => {} });
    const nc = await connect({ servers: nats.url });
    try {
      const jsm = await jetstreamManager(nc);
      expect((await jsm.streams.names().next()).sort()).toEqual(['BILLING', 'DOCUMENTS', 'SUBSCRIPTIONS']);
      expect((await jsm.consumers.info('BILLING', 'documents-finalized')).config.filter_subject).toBe('billing.invoice.finalized');
    } finally {
      await nc.close();
    }
  });
});
