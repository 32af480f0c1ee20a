import { z } from 'zod';
import type { EventEnvelope } from '../events.ts';
import { Subscription } from './subscriptions.ts';

/** Subjects subscriptions publishes: `<context>.<aggregate>.<past-tense-verb>`. */
export const SUBSCRIPTIONS_SUBJECTS = {
  subscriptionCreated: 'subscriptions.subscription.created',
  subscriptionUpdated: 'subscriptions.subscription.updated',
  subscriptionCanceled: 'subscriptions.subscription.canceled',
} as const;
export type SubscriptionsSubject = (typeof SUBSCRIPTIONS_SUBJECTS)[keyof typeof SUBSCRIPTIONS_SUBJECTS];

/** The subscription as the API returns it at the moment of the event. */
export const SubscriptionEventData = z.object({ object: Subscription }).meta({ id: 'SubscriptionEventData' });
export type SubscriptionEventData = z.infer<typeof SubscriptionEventData>;

export const SUBSCRIPTIONS_EVENT_DATA = {
  'subscriptions.subscription.created': SubscriptionEventData,
  'subscriptions.subscription.updated': SubscriptionEventData,
  'subscriptions.subscription.canceled': SubscriptionEventData,
} as const satisfies Record<SubscriptionsSubject, z.ZodType>;

export type SubscriptionsEvent<S extends SubscriptionsSubject = SubscriptionsSubject> = EventEnvelope<SubscriptionEventData> & { type: S };
