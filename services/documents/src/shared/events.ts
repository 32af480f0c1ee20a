import type { DocumentsEvent, DocumentsEventData, DocumentsSubject } from '@invoicing/contracts';
import { addToOutbox, newId } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DOCUMENTS_SCHEMA } from '../database.ts';

export interface EventOrigin {
  workspaceId: string;
  requestId: string;
  /** The API key that acted; null for an anonymous visitor of a public page. */
  keyId: string | null;
}

/** A documents event: the subject decides the payload type, so a wrong payload does not compile. */
export const documentsEvent = <S extends DocumentsSubject>(subject: S, data: DocumentsEventData<S>, origin: EventOrigin, occurredAt: Date): DocumentsEvent<S> => ({
  id: newId(),
  type: subject,
  occurred_at: occurredAt.toISOString(),
  workspace_id: origin.workspaceId,
  correlation_id: origin.requestId,
  idempotency_key: null,
  actor_key_id: origin.keyId,
  data,
});

/** Adds the event to documents' outbox; the relay publishes it once committed. */
export const addDocumentsEvent = <S extends DocumentsSubject>(em: EntityManager, subject: S, data: DocumentsEventData<S>, origin: EventOrigin, occurredAt: Date) =>
  addToOutbox(em, DOCUMENTS_SCHEMA, documentsEvent(subject, data, origin, occurredAt));
