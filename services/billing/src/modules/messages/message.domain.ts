import {
  ATTACHMENT_KINDS,
  toPublicId,
  type AttachmentKind,
  type Invoice,
  type InvoiceSummary,
  type Message,
  type MessageAttachment,
} from '@invoicing/contracts';
import { invalidRequest, invalidState } from '@invoicing/service-kit/app-error';
import type { MessageRow } from './message.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** Where each attachment comes from in the documents service, and the file it becomes. */
export const ATTACHMENT_SOURCES: Record<AttachmentKind, { path: (invoicePublicId: string) => string; contentType: string; suffix: string }> = {
  pdf: { path: (id) => `/api/v1/invoices/${id}/pdf?format=standard`, contentType: 'application/pdf', suffix: '.pdf' },
  facturx: { path: (id) => `/api/v1/invoices/${id}/pdf?format=facturx`, contentType: 'application/pdf', suffix: '.facturx.pdf' },
  ubl: { path: (id) => `/api/v1/invoices/${id}/einvoice?syntax=ubl&profile=en16931`, contentType: 'application/xml', suffix: '.ubl.xml' },
  cii: { path: (id) => `/api/v1/invoices/${id}/einvoice?syntax=cii&profile=en16931`, contentType: 'application/xml', suffix: '.cii.xml' },
  xrechnung_ubl: { path: (id) => `/api/v1/invoices/${id}/einvoice?syntax=ubl&profile=xrechnung`, contentType: 'application/xml', suffix: '.xrechnung.ubl.xml' },
  xrechnung_cii: { path: (id) => `/api/v1/invoices/${id}/einvoice?syntax=cii&profile=xrechnung`, contentType: 'application/xml', suffix: '.xrechnung.cii.xml' },
};

/** `Invoice-INV-2026-0001.pdf`: the number with anything but letters, digits, `.`, `_` and `-` replaced. */
export const attachmentFilename = (number: string | null, kind: AttachmentKind): string =>
  `Invoice-${(number ?? 'draft').replace(/[^A-Za-z0-9._-]+/g, '-')}${ATTACHMENT_SOURCES[kind].suffix}`;

/** The attachments as the message lists them before they are fetched (size 0 until sent). */
export const plannedAttachments = (number: string | null, kinds: readonly AttachmentKind[]): MessageAttachment[] =>
  kinds.map((kind) => ({ filename: attachmentFilename(number, kind), content_type: ATTACHMENT_SOURCES[kind].contentType, size: 0 }));

/** Attachments in the documented order, whatever order they were asked for in. */
export const orderedKinds = (kinds: readonly AttachmentKind[]): AttachmentKind[] => ATTACHMENT_KINDS.filter((kind) => kinds.includes(kind));

/**
 * A send is refused before anything is queued when the invoice cannot be sent as asked: a draft
 * or void invoice (409), no recipient at all (400), or an e-invoice the invoice lacks data for
 * (400, with the fields it misses).
 */
export const assertSendable = (invoice: Invoice, recipients: readonly string[], kinds: readonly AttachmentKind[]): void => {
  if (invoice.status === 'draft' || invoice.status === 'void') throw invalidState(`A ${invoice.status} invoice cannot be sent.`);
  if (recipients.length === 0) throw invalidRequest('The customer has no email address: name the recipients in `to`.', [{ path: 'to', message: 'required: the customer has no email' }]);
  const errors = kinds.flatMap((kind, index) => {
    const readiness = readinessFor(invoice, kind);
    if (!readiness || readiness.ready) return [];
    return [{ path: `attachments.${index}`, message: `${kind} needs ${readiness.missing.map((entry) => entry.path).join(', ')}` }];
  });
  if (errors.length) throw invalidRequest('The invoice lacks data for an attachment asked for.', errors);
};

/** The e-invoice profile an attachment needs the invoice to qualify for, with its readiness; none for the plain PDF. */
const readinessFor = (invoice: Invoice, kind: AttachmentKind) => {
  const profile = kind === 'xrechnung_ubl' || kind === 'xrechnung_cii' ? 'xrechnung' : kind === 'pdf' ? undefined : 'en16931';
  return profile ? invoice.einvoice?.[profile] : undefined;
};

/**
 * The attachments of an account's `email_attachments` that this invoice can carry, in the
 * documented order: an e-invoice needs the data of its profile. A message nobody asked for by
 * name (sent on finalize, a reminder) leaves out what the invoice cannot carry rather than fail.
 */
export const attachableKinds = (invoice: Invoice, kinds: readonly AttachmentKind[]): AttachmentKind[] =>
  orderedKinds(kinds).filter((kind) => readinessFor(invoice, kind)?.ready ?? true);

/** Addresses compare case-insensitively (the domain always is; local parts are in practice). */
export const normalizedAddress = (address: string): string => address.trim().toLowerCase();

/** The distinct addresses, keeping the first spelling of each. */
export const distinctAddresses = (addresses: readonly string[]): string[] => {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = normalizedAddress(address);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
};

/** The `Message-ID` of a message, the same on every attempt, so a receiver can drop a repeat. */
export const messageIdHeader = (messageId: string, domain: string): string => `<${toPublicId('message', messageId)}@${domain}>`;

/**
 * How an SMTP failure is treated: `permanent` (a 5xx answer: the address is refused for good),
 * or `temporary` (a 4xx answer, a lost or refused connection, a timeout), which is retried.
 */
export type SmtpFailureKind = 'permanent' | 'temporary';
export const smtpFailureKind = (responseCode: number | undefined): SmtpFailureKind => (responseCode !== undefined && responseCode >= 500 && responseCode < 600 ? 'permanent' : 'temporary');

/** Seconds until the next attempt after `attemptsMade` attempts, or undefined when the schedule is spent. */
export const secondsUntilRetry = (schedule: readonly number[], attemptsMade: number): number | undefined => schedule[attemptsMade - 1];

/**
 * The latest reminder day that has come (`today` included) and is after the last one sent and on or
 * after the day the invoice was finalized; undefined when none is due. Days missed while nothing
 * ran are caught up once: only the latest of them counts.
 */
export const reminderDue = (dueDate: string, reminderDays: readonly number[], today: string, lastReminderOn: string | null, finalizedOn: string): string | undefined => {
  const days = reminderDays
    .map((offset) => addDays(dueDate, offset))
    .filter((day) => day <= today && day >= finalizedOn && (lastReminderOn === null || day > lastReminderOn))
    .sort();
  return days.at(-1);
};

const addDays = (date: string, days: number): string => {
  const [year, month, day] = date.split('-').map(Number);
  return new Date(Date.UTC(year ?? 0, (month ?? 1) - 1, (day ?? 1) + days)).toISOString().slice(0, 10);
};

export const messageView = (row: MessageRow): Message => ({
  id: toPublicId('message', row.id),
  object: 'message',
  livemode: livemodeOf(row.workspaceId),
  invoice: toPublicId('invoice', row.invoiceId),
  kind: row.kind,
  to: row.toAddresses,
  cc: row.ccAddresses,
  subject: row.subject,
  attachments: row.attachments,
  status: row.status,
  error: row.error ?? null,
  attempts: row.attempts,
  sent_at: row.sentAt ? row.sentAt.toISOString() : null,
  created: row.createdAt.toISOString(),
});
