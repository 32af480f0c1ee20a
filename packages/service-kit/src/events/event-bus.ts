import type { EventEnvelope } from '@invoicing/contracts';

/** A durable subscription: one consumer name per service and subject filter. */
export interface EventConsumer {
  /** Durable consumer name; replicas of one service share it, so each event is handled once per service. */
  durable: string;
  /** One subject filter, NATS wildcards allowed (`billing.>`, `billing.invoice.finalized`). */
  subject: string;
  /** Commits its effect, then returns; throwing makes the event come again later. */
  handle: (envelope: EventEnvelope) => Promise<void>;
}

/** Publishes and consumes events; JetStream in production, in-process when NATS_URL is unset. */
export interface EventBus {
  /** Resolves once the bus holds the event durably (JetStream ack) or, in-process, once every consumer handled it. */
  publish: (envelope: EventEnvelope) => Promise<void>;
  subscribe: (consumer: EventConsumer) => Promise<void>;
  /** Throws when the bus is unreachable; readiness probes use it. */
  ping: () => Promise<void>;
  close: () => Promise<void>;
}

/**
 * Log fields of a consumer's work on an event: the id of the API request it came from as
 * `request_id` and its workspace, so one search finds a request's lines in every service.
 */
export const eventLogFields = (envelope: EventEnvelope) => ({
  request_id: envelope.correlation_id,
  workspace_id: envelope.workspace_id,
  event_id: envelope.id,
  event_type: envelope.type,
});

/** NATS subject matching: `*` is one token, `>` the rest. */
export const subjectMatches = (filter: string, subject: string): boolean => {
  const filterTokens = filter.split('.');
  const subjectTokens = subject.split('.');
  for (let i = 0; i < filterTokens.length; i++) {
    const token = filterTokens[i];
    if (token === '>') return subjectTokens.length > i;
    if (token !== '*' && token !== subjectTokens[i]) return false;
  }
  return filterTokens.length === subjectTokens.length;
};
