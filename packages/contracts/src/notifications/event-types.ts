import { z } from 'zod';
import { BILLING_SUBJECTS } from '../billing/events.ts';
import { DOCUMENTS_SUBJECTS } from '../documents/events.ts';
import { SUBSCRIPTIONS_SUBJECTS } from '../subscriptions/events.ts';

/** The public event types a webhook endpoint can subscribe to (decisions.md, "Webhooks"). */
export const WEBHOOK_EVENT_TYPES = [
  'invoice.created',
  'invoice.updated',
  'invoice.deleted',
  'invoice.finalized',
  'invoice.paid',
  'invoice.payment_recorded',
  'invoice.voided',
  'invoice.overdue',
  'invoice.viewed',
  'subscription.created',
  'subscription.updated',
  'subscription.canceled',
  'invoice.sent',
  'invoice.reminder_sent',
  'message.failed',
] as const;
export const WebhookEventType = z.enum(WEBHOOK_EVENT_TYPES).meta({ id: 'WebhookEventType' });
export type WebhookEventType = z.infer<typeof WebhookEventType>;

/** The bus subject behind each public event type. */
export const SUBJECT_OF_EVENT_TYPE = {
  'invoice.created': BILLING_SUBJECTS.invoiceCreated,
  'invoice.updated': BILLING_SUBJECTS.invoiceUpdated,
  'invoice.deleted': BILLING_SUBJECTS.invoiceDeleted,
  'invoice.finalized': BILLING_SUBJECTS.invoiceFinalized,
  'invoice.paid': BILLING_SUBJECTS.invoicePaid,
  'invoice.payment_recorded': BILLING_SUBJECTS.invoicePaymentRecorded,
  'invoice.voided': BILLING_SUBJECTS.invoiceVoided,
  'invoice.overdue': BILLING_SUBJECTS.invoiceOverdue,
  'invoice.viewed': DOCUMENTS_SUBJECTS.invoiceViewed,
  'subscription.created': SUBSCRIPTIONS_SUBJECTS.subscriptionCreated,
  'subscription.updated': SUBSCRIPTIONS_SUBJECTS.subscriptionUpdated,
  'subscription.canceled': SUBSCRIPTIONS_SUBJECTS.subscriptionCanceled,
  'invoice.sent': BILLING_SUBJECTS.invoiceSent,
  'invoice.reminder_sent': BILLING_SUBJECTS.invoiceReminderSent,
  'message.failed': BILLING_SUBJECTS.messageFailed,
} as const satisfies Record<WebhookEventType, string>;

const EVENT_TYPE_OF_SUBJECT: ReadonlyMap<string, WebhookEventType> = new Map(
  Object.entries(SUBJECT_OF_EVENT_TYPE).map(([type, subject]) => [subject, type as WebhookEventType]),
);

/** The public event type of a bus subject; undefined for subjects no webhook carries. */
export const eventTypeOfSubject = (subject: string): WebhookEventType | undefined => EVENT_TYPE_OF_SUBJECT.get(subject);
