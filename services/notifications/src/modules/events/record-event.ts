import { EventEnvelope, eventTypeOfSubject, webhookEventDataSchema } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { withFieldsAddedSince } from '@invoicing/service-kit/earlier-event-data';
import { eventRepository } from './event.repository.ts';

export interface RecordEventDeps {
  em: EntityManager;
  /** Seconds before the first attempt (the retry schedule's first entry). */
  firstAttemptInS: number;
  /** Called after a commit that queued deliveries, so the worker sends them now. */
  announce: () => void;
  /** An event that cannot be stored: it is logged and acknowledged, since redelivering it would not fix it. */
  onRejected: (subject: string, reason: string) => void;
}

/**
 * The consumer of billing and documents events: each becomes an `evt_` event of its workspace
 * with one delivery per matching enabled endpoint. Its effect commits before it returns, so the
 * bus acknowledges only what is stored; a redelivered event is recognised by its id.
 */
export const recordEvent = ({ em, firstAttemptInS, announce, onRejected }: RecordEventDeps) => async (message: unknown): Promise<void> => {
  const envelope = EventEnvelope.safeParse(message);
  if (!envelope.success) return onRejected('(unknown)', `not an event envelope: ${envelope.error.message}`);
  const type = eventTypeOfSubject(envelope.data.type);
  if (type === undefined) return;
  const data = webhookEventDataSchema(type).safeParse(withFieldsAddedSince(envelope.data.data, envelope.data.workspace_id));
  if (!data.success) return onRejected(envelope.data.type, `data is not { object: <${type.split('.')[0]}> }: ${data.error.message}`);
  const { deliveries } = await eventRepository(em.fork()).recordWithDeliveries(
    { id: envelope.data.id, workspaceId: envelope.data.workspace_id, correlationId: envelope.data.correlation_id, type, created: new Date(envelope.data.occurred_at), data: data.data },
    firstAttemptInS,
  );
  if (deliveries > 0) announce();
};
