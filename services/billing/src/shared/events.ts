import type { BillingEvent, BillingEventData, BillingSubject } from '@invoicing/contracts';
import { addToOutbox, eventEnvelope } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { BILLING_SCHEMA } from '../database.ts';
import type { Actor } from './actor.ts';

/** A billing event: the subject decides the payload type, so a wrong payload does not compile. */
export const billingEvent = <S extends BillingSubject>(subject: S, data: BillingEventData<S>, actor: Actor, occurredAt: Date): BillingEvent<S> =>
  eventEnvelope(subject, data, actor, occurredAt);

/** Adds the event to billing's outbox inside `tx`: it commits, or rolls back, with the change it reports. */
export const addBillingEvent = <S extends BillingSubject>(
  tx: EntityManager,
  subject: S,
  data: BillingEventData<S>,
  actor: Actor,
  occurredAt: Date,
): Promise<void> => addToOutbox(tx, BILLING_SCHEMA, billingEvent(subject, data, actor, occurredAt));
