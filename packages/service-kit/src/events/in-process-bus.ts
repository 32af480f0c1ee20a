import { AsyncLocalStorage } from 'node:async_hooks';
import type { EventEnvelope } from '@invoicing/contracts';
import { subjectMatches, type EventBus, type EventConsumer } from './event-bus.ts';

/**
 * The bus for a single-process start without NATS. `publish` runs every matching consumer before
 * it resolves, and rejects if one fails: the outbox then keeps the event and publishes it again,
 * so nothing is lost even though nothing is stored here (consumers drop what they already did).
 *
 * Events are handled one at a time, in publish order, as a JetStream consumer receives them: the
 * outbox relay sends a whole batch before awaiting any of it. So a consumer must never await a
 * publish on this bus itself (it would wait behind its own event); consumers publish through
 * their outbox.
 */
export const createInProcessBus = (): EventBus => {
  const consumers = new Map<string, EventConsumer>();
  let previous: Promise<unknown> = Promise.resolve();
  const deliver = async (envelope: EventEnvelope) => {
    const matching = [...consumers.values()].filter((c) => subjectMatches(c.subject, envelope.type));
    const results = await Promise.allSettled(matching.map((c) => c.handle(envelope)));
    const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    if (failed) throw failed.reason;
  };
  return {
    publish: (envelope: EventEnvelope) => {
      const delivered = previous.then(() => deliver(envelope));
      previous = delivered.catch(() => {});
      return delivered;
    },
    subscribe: async (consumer) => {
      // A consumer runs in the context it subscribed from, not in the publisher's (its transaction,
      // its request), just as it would in another process.
      const inSubscriberContext = AsyncLocalStorage.snapshot();
      consumers.set(`${consumer.durable}|${consumer.subject}`, { ...consumer, handle: (envelope) => inSubscriberContext(() => consumer.handle(envelope)) });
    },
    ping: async () => {},
    close: async () => {
      consumers.clear();
    },
  };
};
