import type { DocumentsEvent, DocumentsEventData, DocumentsSubject } from '@invoicing/contracts';
import { addToOutbox, eventEnvelope, type EventOrigin } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DOCUMENTS_SCHEMA } from '../database.ts';

/** A documents event: the subject decides the payload type, so a wrong payload does not compile. */
export const documentsEvent = <S extends DocumentsSubject>(subject: S, data: DocumentsEventData<S>, origin: EventOrigin, occurredAt: Date): DocumentsEvent<S> =>
  eventEnvelope(subject, data, origin, occurredAt);

/** Adds the event to documents' outbox; the relay publishes it once committed. */
export const addDocumentsEvent = <S extends DocumentsSubject>(em: EntityManager, subject: S, data: DocumentsEventData<S>, origin: EventOrigin, occurredAt: Date) =>
  addToOutbox(em, DOCUMENTS_SCHEMA, documentsEvent(subject, data, origin, occurredAt));
