import type { EventEnvelope } from '@invoicing/contracts';
import { newId } from '../ids.ts';

/** Who caused an event, in what request. */
export interface EventOrigin {
  workspaceId: string;
  requestId: string;
  /** The API key that acted; null for the system or an anonymous visitor of a public page. */
  keyId: string | null;
  /** The request's `Idempotency-Key`, where it had one. */
  idempotencyKey?: string | null;
}

/**
 * A new event of `subject`, as it travels. Each service narrows `data` by subject (its own
 * `<Context>EventData<S>`), so a wrong payload does not compile.
 */
export const eventEnvelope = <S extends string, Data>(subject: S, data: Data, origin: EventOrigin, occurredAt: Date): EventEnvelope<Data> & { type: S } => ({
  id: newId(),
  type: subject,
  occurred_at: occurredAt.toISOString(),
  workspace_id: origin.workspaceId,
  correlation_id: origin.requestId,
  idempotency_key: origin.idempotencyKey ?? null,
  actor_key_id: origin.keyId,
  data,
});
