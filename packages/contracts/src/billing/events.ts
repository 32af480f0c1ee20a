import { z } from 'zod';
import { EventEnvelope } from '../events.ts';
import { Invoice } from './invoices.ts';
import { Message } from './messages.ts';

/** Subjects billing publishes: `<context>.<aggregate>.<past-tense-verb>`. */
export const BILLING_SUBJECTS = {
  invoiceCreated: 'billing.invoice.created',
  invoiceUpdated: 'billing.invoice.updated',
  invoiceDeleted: 'billing.invoice.deleted',
  invoiceFinalized: 'billing.invoice.finalized',
  invoicePaid: 'billing.invoice.paid',
  invoicePaymentRecorded: 'billing.invoice.payment_recorded',
  invoiceVoided: 'billing.invoice.voided',
  invoiceOverdue: 'billing.invoice.overdue',
  invoiceSent: 'billing.invoice.sent',
  invoiceReminderSent: 'billing.invoice.reminder_sent',
  messageFailed: 'billing.message.failed',
  /** Not a webhook: tells catalog that an address was refused for good (its customers become `email_status: "bounced"`). */
  emailSuppressed: 'billing.email.suppressed',
} as const;
export type BillingSubject = (typeof BILLING_SUBJECTS)[keyof typeof BILLING_SUBJECTS];

/** The invoice as the API returns it at the moment of the event, lines included. */
export const InvoiceEventData = z.object({ object: Invoice }).meta({ id: 'InvoiceEventData' });
export type InvoiceEventData = z.infer<typeof InvoiceEventData>;

/** A message as the API returns it (`message.failed`). */
export const MessageEventData = z.object({ object: Message }).meta({ id: 'MessageEventData' });
export type MessageEventData = z.infer<typeof MessageEventData>;

/** An address a mail server refused permanently, in the envelope's workspace. */
export const EmailSuppressedData = z.object({ address: z.string(), message: z.string().describe('`msg_` ID of the refused message.') });
export type EmailSuppressedData = z.infer<typeof EmailSuppressedData>;

/** The payload schema of each subject. */
export const BILLING_EVENT_DATA = {
  'billing.invoice.created': InvoiceEventData,
  'billing.invoice.updated': InvoiceEventData,
  'billing.invoice.deleted': InvoiceEventData,
  'billing.invoice.finalized': InvoiceEventData,
  'billing.invoice.paid': InvoiceEventData,
  'billing.invoice.payment_recorded': InvoiceEventData,
  'billing.invoice.voided': InvoiceEventData,
  'billing.invoice.overdue': InvoiceEventData,
  'billing.invoice.sent': InvoiceEventData,
  'billing.invoice.reminder_sent': InvoiceEventData,
  'billing.message.failed': MessageEventData,
  'billing.email.suppressed': EmailSuppressedData,
} as const satisfies Record<BillingSubject, z.ZodType>;

export type BillingEventData<S extends BillingSubject> = z.infer<(typeof BILLING_EVENT_DATA)[S]>;

/** A billing event as it travels: the envelope with `type` = subject and that subject's payload. */
export type BillingEvent<S extends BillingSubject = BillingSubject> = EventEnvelope<BillingEventData<S>> & { type: S };

/** The envelope schema of one subject, for consumers that validate what they receive. */
export const billingEventSchema = <S extends BillingSubject>(subject: S) =>
  EventEnvelope.extend({ type: z.literal(subject), data: BILLING_EVENT_DATA[subject] });

export const isBillingSubject = (subject: string): subject is BillingSubject => subject in BILLING_EVENT_DATA;
