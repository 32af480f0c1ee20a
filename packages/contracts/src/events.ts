import { z } from 'zod';
import { Timestamp } from './common.ts';

/**
 * Every event on the bus travels in this envelope. `type` is the subject
 * (`<context>.<aggregate>.<past-tense-verb>`); `id` is also the JetStream `Nats-Msg-Id`,
 * so a republished event is absorbed as a duplicate.
 */
export const EventEnvelope = z.object({
  id: z.uuid(),
  type: z.string(),
  occurred_at: Timestamp,
  workspace_id: z.uuid(),
  /** The request id of the API call that caused it (or of the sweep run). */
  correlation_id: z.string(),
  /** The Idempotency-Key of that call, when it had one. */
  idempotency_key: z.string().nullable(),
  /** The API key that acted; null for system actions such as the overdue sweep. */
  actor_key_id: z.string().nullable(),
  data: z.unknown(),
});
export type EventEnvelope<Data = unknown> = Omit<z.infer<typeof EventEnvelope>, 'data'> & { data: Data };

/** JetStream streams and the subjects each captures; publishers and consumers both ensure them. */
export const EVENT_STREAMS = {
  BILLING: ['billing.>'],
  DOCUMENTS: ['documents.>'],
  SUBSCRIPTIONS: ['subscriptions.>'],
} as const satisfies Record<string, readonly string[]>;

/** The stream that captures a subject (by its first token). */
export const streamOf = (subject: string): keyof typeof EVENT_STREAMS => {
  const context = subject.split('.')[0];
  const stream = Object.entries(EVENT_STREAMS).find(([, subjects]) => subjects.some((s) => s.split('.')[0] === context));
  if (!stream) throw new Error(`No stream captures subject ${subject}`);
  return stream[0] as keyof typeof EVENT_STREAMS;
};
