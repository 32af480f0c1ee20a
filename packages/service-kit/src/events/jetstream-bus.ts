import { EVENT_STREAMS, streamOf, type EventEnvelope } from '@invoicing/contracts';
import { AckPolicy, DeliverPolicy, jetstream, jetstreamManager, JetStreamApiError, type JetStreamManager } from '@nats-io/jetstream';
import { connect, headers, type MsgHdrs } from '@nats-io/transport-node';
import { extractTraceContext, injectTraceContext, inSpan, SpanKind } from '../tracing.ts';
import type { EventBus, EventConsumer } from './event-bus.ts';

export interface JetStreamBusOptions {
  url: string;
  /** Connection name shown by the server, such as the service name. */
  name: string;
  /** Replicas of each stream: 1 on one server, 3 on a JetStream cluster. */
  replicas: number;
  /** How long a stream keeps messages. */
  maxAgeMs: number;
  /** Called with errors of a consume loop that the bus recovers from by itself. */
  onError: (error: unknown, context: string) => void;
}

/** Redelivery backoff for an event whose handler threw. */
const REDELIVERY_DELAY_MS = 2_000;
const PUBLISH_TIMEOUT_MS = 5_000;
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

const ensureStreams = async (jsm: JetStreamManager, replicas: number, maxAgeMs: number): Promise<void> => {
  for (const [name, subjects] of Object.entries(EVENT_STREAMS)) {
    const config = { name, subjects: [...subjects], num_replicas: replicas, max_age: maxAgeMs * 1e6, duplicate_window: DUPLICATE_WINDOW_NS };
    try {
      await jsm.streams.info(name);
      await jsm.streams.update(name, { subjects: config.subjects, max_age: config.max_age, duplicate_window: config.duplicate_window });
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.streams.add(config);
    }
  }
};

/** The bus on NATS JetStream: file-backed streams, durable pull consumers, explicit acks. */
export const connectJetStreamBus = async (options: JetStreamBusOptions): Promise<EventBus> => {
  const nc = await connect({ servers: options.url, name: options.name, maxReconnectAttempts: -1, reconnectTimeWait: 500 });
  const jsm = await jetstreamManager(nc);
  await ensureStreams(jsm, options.replicas, options.maxAgeMs);
  const js = jetstream(nc, { timeout: PUBLISH_TIMEOUT_MS });
  let closing = false;
  const loops: Promise<void>[] = [];

  const ensureConsumer = async ({ durable, subject }: EventConsumer) => {
    const stream = streamOf(subject);
    try {
      await jsm.consumers.info(stream, durable);
    } catch (error) {
      if (!isNotFound(error)) throw error;
      await jsm.consumers.add(stream, {
        durable_name: durable,
        filter_subject: subject,
        ack_policy: AckPolicy.Explicit,
        deliver_policy: DeliverPolicy.All,
        ack_wait: 60 * 1e9,
        max_ack_pending: 1_000,
      });
    }
    return js.consumers.get(stream, durable);
  };

  // Runs until the bus closes; a lost connection or a removed consumer starts the loop over.
  const consumeForever = async (consumer: EventConsumer) => {
    while (!closing) {
      try {
        const messages = await (await ensureConsumer(consumer)).consume({ max_messages: 200 });
        for await (const message of messages) {
          try {
            await inSpan(
              options.name,
              `process ${message.subject}`,
              { kind: SpanKind.CONSUMER, parent: extractTraceContext(message.headers, natsHeaderGetter), attributes: { 'messaging.destination.name': message.subject, 'messaging.consumer.group.name': consumer.durable } },
              () => consumer.handle(message.json<EventEnvelope>()),
            );
            message.ack();
          } catch (error) {
            options.onError(error, `handling ${message.subject} in ${consumer.durable}`);
            message.nak(REDELIVERY_DELAY_MS);
          }
          if (closing) break;
        }
      } catch (error) {
        if (closing) return;
        options.onError(error, `consumer ${consumer.durable}`);
        await new Promise((resolve) => setTimeout(resolve, 1_000));
      }
    }
  };

  return {
    publish: async (envelope) => {
      await inSpan(options.name, `publish ${envelope.type}`, { kind: SpanKind.PRODUCER, attributes: { 'messaging.destination.name': envelope.type, 'messaging.message.id': envelope.id } }, async () => {
        const h = headers();
        h.set('Content-Type', 'application/json');
        injectTraceContext(h, { set: (carrier, key, value) => carrier.set(key, value) });
        await js.publish(envelope.type, JSON.stringify(envelope), { msgID: envelope.id, headers: h });
      });
    },
    subscribe: async (consumer) => {
      await ensureConsumer(consumer);
      loops.push(consumeForever(consumer));
    },
    ping: async () => {
      await nc.flush();
    },
    close: async () => {
      closing = true;
      await nc.drain().catch(() => nc.close());
      await Promise.allSettled(loops);
    },
  };
};
