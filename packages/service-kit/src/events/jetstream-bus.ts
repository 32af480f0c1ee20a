import { EVENT_STREAMS, streamOf, type EventEnvelope } from '@invoicing/contracts';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, JetStreamApiError, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { headers, type MsgHdrs } from '@nats-io/transport-node';
import { extractTraceContext, injectTraceContext, inSpan, SpanKind } from '../tracing.ts';
import type { EventBus, EventConsumer } from './event-bus.ts';
import { keepNatsConnection } from './nats-connection-keeper.ts';
import { natsNames, type NatsNames } from './nats-names.ts';

export interface JetStreamBusOptions {
  url: string;
  /** Connection name shown by the server, such as the service name. */
  name: string;
  /** Replicas of each stream: 1 on one server, 3 on a JetStream cluster. */
  replicas: number;
  /** How long a stream keeps messages. */
  maxAgeMs: number;
  /**
   * Put before stream names, durable consumer names and subjects on the wire, so deployments that
   * share a NATS server stay apart. Empty (the default): the names as they always were.
   */
  prefix?: string;
  /** Called with errors the bus recovers from by itself: a consume loop's, NATS being unreachable. */
  onError: (error: unknown, context: string) => void;
  /** Called with notices worth a log line, such as NATS being reachable again. */
  log?: (message: string) => void;
  /** At most one "unreachable" report per this interval while NATS stays away (default 30 s). */
  unreachableLogIntervalMs?: number;
}

/** Redelivery backoff for an event whose handler threw. */
const REDELIVERY_DELAY_MS = 2_000;
const PUBLISH_TIMEOUT_MS = 5_000;
/**
 * How long an event handed to a consumer waits for its ack before JetStream hands it out again:
 * after a consumer process is killed, its unacknowledged events come back this soon. Every event
 * of a pulled batch must be handled within it, hence the modest batch.
 */
const ACK_WAIT_MS = 20_000;
const ACK_WAIT_NS = ACK_WAIT_MS * 1e6;
const PULL_BATCH = 64;
const CONSUMER_RESTART_DELAY_MS = 1_000;
/**
 * How long JetStream remembers a `Nats-Msg-Id` and drops a second publish of it. Long enough for
 * the outbox's republishing (after a NATS restart, or after a relay's lease ran out) to be absorbed.
 */
export const DUPLICATE_WINDOW_MS = 10 * 60_000;
const DUPLICATE_WINDOW_NS = DUPLICATE_WINDOW_MS * 1e6;

const natsHeaderGetter = {
  keys: (carrier: MsgHdrs | undefined) => (carrier ? carrier.keys() : []),
  get: (carrier: MsgHdrs | undefined, key: string) => carrier?.get(key) || undefined,
};

const isNotFound = (error: unknown) => error instanceof JetStreamApiError && error.status === 404;

interface JetStreamLink {
  js: JetStreamClient;
  jsm: JetStreamManager;
}

const ensureStreams = async (jsm: JetStreamManager, names: NatsNames, replicas: number, maxAgeMs: number): Promise<void> => {
  for (const [stream, subjects] of Object.entries(EVENT_STREAMS)) {
    const name = names.stream(stream);
    const config = { name, subjects: subjects.map(names.subject), num_replicas: replicas, max_age: maxAgeMs * 1e6, duplicate_window: DUPLICATE_WINDOW_NS };
    try {
      await jsm.streams.info(name);
      await jsm.streams.update(name, { subjects: config.subjects, max_age: config.max_age, duplicate_window: config.duplicate_window });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.streams.add(config);
    }
  }
};

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The bus on NATS JetStream: file-backed streams, durable pull consumers, explicit acks.
 *
 * Resolves at once: the connection is made in the background and retried until NATS answers, so a
 * service started while NATS is down stays up and reports not-ready instead of exiting. Until then
 * `publish` and `ping` reject saying NATS is unreachable (the first attempt is awaited, so a bus
 * just created does not refuse what a connection a moment later serves), and consumers that
 * `subscribe` registered start once it is up.
 */
export const connectJetStreamBus = async (options: JetStreamBusOptions): Promise<EventBus> => {
  const names = natsNames(options.prefix ?? '');
  const keeper = keepNatsConnection<JetStreamLink>({
    url: options.url,
    name: options.name,
    prepare: async (nc) => {
      const jsm = await jetstreamManager(nc);
      await ensureStreams(jsm, names, options.replicas, options.maxAgeMs);
      return { jsm, js: jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS }) };
    },
    onError: options.onError,
    log: options.log ?? (() => {}),
    unreachableLogIntervalMs: options.unreachableLogIntervalMs ?? 30_000,
  });
  let closing = false;
  const loops: Promise<void>[] = [];

  const ensureConsumer = async ({ js, jsm }: JetStreamLink, consumer: EventConsumer) => {
    const stream = names.stream(streamOf(consumer.subject));
    const durable = names.durable(consumer.durable);
    try {
      const info = await jsm.consumers.info(stream, durable);
      // Consumers made by earlier versions waited a minute before redelivering.
      if (info.config.ack_wait !== ACK_WAIT_NS) await jsm.consumers.update(stream, durable, { ack_wait: ACK_WAIT_NS });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.consumers.add(stream, {
        durable_name: durable,
        filter_subject: names.subject(consumer.subject),
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: ACK_WAIT_NS,
        max_ack_pending: 1_000,
      });
    }
    return js.consumers.get(stream, durable);
  };

  // Runs until the bus closes; waits while NATS is away, and a lost connection or a removed consumer starts the loop over.
  const consumeForever = async (consumer: EventConsumer) => {
    while (!closing) {
      const connected = await keeper.whenUp();
      if (!connected) return;
      try {
        const messages = await (await ensureConsumer(connected.link, consumer)).consume({ max_messages: PULL_BATCH });
        for await (const message of messages) {
          const eventType = names.eventType(message.subject);
          // A handler that takes long (a PDF render under load) keeps its message from redelivery.
          const heartbeat = setInterval(() => message.working(), ACK_WAIT_MS / 3);
          try {
            await inSpan(
              options.name,
              `process ${eventType}`,
              { kind: SpanKind.CONSUMER, parent: extractTraceContext(message.headers, natsHeaderGetter), attributes: { 'messaging.destination.name': message.subject, 'messaging.consumer.group.name': consumer.durable } },
              () => consumer.handle(message.json<EventEnvelope>()),
            );
            message.ack();
          } catch (error) {
            options.onError(error, `handling ${eventType} in ${consumer.durable}`);
            message.nak(REDELIVERY_DELAY_MS);
          } finally {
            clearInterval(heartbeat);
          }
          if (closing) break;
        }
      } catch (error) {
        if (closing) return;
        options.onError(error, `consumer ${consumer.durable}`);
        await pause(CONSUMER_RESTART_DELAY_MS);
      }
    }
  };

  return {
    publish: async (envelope) => {
      const subject = names.subject(envelope.type);
      await inSpan(options.name, `publish ${envelope.type}`, { kind: SpanKind.PRODUCER, attributes: { 'messaging.destination.name': subject, 'messaging.message.id': envelope.id } }, async () => {
        // Rejects at once while NATS is away: the outbox keeps the event and tries again with backoff.
        const { link } = await keeper.connected();
        const h = headers();
        h.set('Content-Type', 'application/json');
        injectTraceContext(h, { set: (carrier, key, value) => carrier.set(key, value) });
        await link.js.publish(subject, JSON.stringify(envelope), { msgID: envelope.id, headers: h });
      });
    },
    subscribe: async (consumer) => {
      // Creating the consumer now, when NATS is up, makes a wrong consumer fail the start as before.
      const connected = await keeper.connected().catch(() => undefined);
      if (connected) {
        try {
          await ensureConsumer(connected.link, consumer);
        } catch (error) {
          if (keeper.isUp()) throw error;
          options.onError(error, `consumer ${consumer.durable}: created once NATS is back`);
        }
      }
      loops.push(consumeForever(consumer));
    },
    ping: async () => {
      const { nc } = await keeper.connected();
      await nc.flush();
    },
    close: async () => {
      closing = true;
      await keeper.close();
      await Promise.allSettled(loops);
    },
  };
};
