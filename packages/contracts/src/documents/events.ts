import { z } from 'zod';
import type { EventEnvelope } from '../events.ts';
import { Invoice } from '../billing/invoices.ts';

/** Subjects documents publishes: `<context>.<aggregate>.<past-tense-verb>`. */
export const DOCUMENTS_SUBJECTS = {
  invoiceViewed: 'documents.invoice.viewed',
} as const;
export type DocumentsSubject = (typeof DOCUMENTS_SUBJECTS)[keyof typeof DOCUMENTS_SUBJECTS];

/** Someone opened the public page: the invoice as the page showed it (current status included). */
export const InvoiceViewedData = z.object({ object: Invoice }).meta({ id: 'InvoiceViewedData' });
export type InvoiceViewedData = z.infer<typeof InvoiceViewedData>;

/** The payload schema of each subject. */
export const DOCUMENTS_EVENT_DATA = {
  'documents.invoice.viewed': InvoiceViewedData,
} as const satisfies Record<DocumentsSubject, z.ZodType>;

export type DocumentsEventData<S extends DocumentsSubject> = z.infer<(typeof DOCUMENTS_EVENT_DATA)[S]>;

/** A documents event as it travels: the envelope with `type` = subject and that subject's payload. */
export type DocumentsEvent<S extends DocumentsSubject = DocumentsSubject> = EventEnvelope<DocumentsEventData<S>> & { type: S };
