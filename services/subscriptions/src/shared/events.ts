import type { SubscriptionEventData, SubscriptionsSubject } from '@invoicing/contracts';
import { addToOutbox, eventEnvelope, type EventOrigin } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { SUBSCRIPTIONS_SCHEMA } from '../database.ts';

/** Adds a subscription event to the outbox inside `tx`: it commits, or rolls back, with the change it reports. */
export const addSubscriptionEvent = (tx: EntityManager, subject: SubscriptionsSubject, data: SubscriptionEventData, origin: EventOrigin, occurredAt: Date): Promise<void> =>
  addToOutbox(tx, SUBSCRIPTIONS_SCHEMA, eventEnvelope(subject, data, origin, occurredAt));
