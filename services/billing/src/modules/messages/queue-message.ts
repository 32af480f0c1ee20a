import { BILLING_SUBJECTS, type AttachmentKind, type Customer, type Invoice, type MessageKind } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit/ids';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { addBillingEvent } from '../../shared/events.ts';
import { composeEmail } from './message-templates.ts';
import { attachableKinds, messageView, normalizedAddress, plannedAttachments } from './message.domain.ts';
import type { MessageRow } from './message.entity.ts';
import { messageRepository } from './message.repository.ts';

export interface MessageRequest {
  kind: MessageKind;
  invoice: Invoice;
  to: string[];
  cc: string[];
  note: string | null;
  kinds: AttachmentKind[];
  /** A reminder's local day. */
  reminderOn?: string;
  actor: Actor;
  now: Date;
}

/**
 * The message row for a request. An address refused for good in the workspace fails it at once
 * (`suppressed`, no SMTP attempt) with `message.failed`; otherwise it is queued, due now.
 */
const messageRowFor = (request: MessageRequest, suppressed: boolean): MessageRow => ({
  id: newId(),
  workspaceId: request.actor.workspaceId,
  invoiceId: parseInvoiceUuid(request.invoice.id),
  kind: request.kind,
  toAddresses: request.to,
  ccAddresses: request.cc,
  subject: composeEmail({ kind: request.kind, invoice: request.invoice, note: null, locale: request.invoice.locale }).subject,
  note: request.note,
  attachmentKinds: request.kinds,
  attachments: plannedAttachments(request.invoice.number, request.kinds),
  reminderOn: request.reminderOn ?? null,
  status: suppressed ? 'failed' : 'queued',
  error: suppressed ? 'suppressed' : null,
  attempts: 0,
  lease: null,
  nextAttemptAt: suppressed ? null : request.now,
  correlationId: request.actor.requestId,
  sentAt: null,
  createdAt: request.now,
});

const parseInvoiceUuid = (publicId: string): string => {
  const hex = publicId.slice(publicId.indexOf('_') + 1);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
};

/**
 * Queues a message in `tx`, the transaction of its cause (a send, a finalize, a reminder due), so
 * it exists exactly when its cause committed. Returns the row, or undefined for a reminder whose
 * day has one already.
 */
export const queueMessage = async (tx: EntityManager, request: MessageRequest): Promise<MessageRow | undefined> => {
  const messages = messageRepository(tx);
  const suppressed = await messages.suppressedAmong(request.actor.workspaceId, [...request.to, ...request.cc].map(normalizedAddress));
  const row = messageRowFor(request, suppressed.length > 0);
  if (request.kind === 'reminder') {
    if (!(await messages.addReminder(tx, row))) return undefined;
  } else await messages.add(tx, row);
  if (row.status === 'failed') await addBillingEvent(tx, BILLING_SUBJECTS.messageFailed, { object: messageView(row) }, request.actor, request.now);
  return row;
};

/**
 * Keeps the suppression of a customer's address in step with catalog's `email_status`: bounced
 * means catalog has heard of the refusal; `ok` again after that means the customer's email was
 * changed since (catalog resets it only then), so the address is tried again.
 */
export const followCustomerEmailStatus = async (em: EntityManager, workspaceId: string, customer: Pick<Customer, 'email' | 'email_status'> | undefined): Promise<void> => {
  if (!customer?.email) return;
  const messages = messageRepository(em);
  const address = normalizedAddress(customer.email);
  if (customer.email_status === 'bounced') await messages.markSeenBounced(workspaceId, address);
  else await messages.liftSeenBounced(workspaceId, address);
};

/**
 * `send_on_finalize`: each invoice a finalize batch opened is queued to its customer's email (as
 * the batch just read it from the catalog into the snapshot), in the batch's transaction, with the
 * account's attachments that the invoice qualifies for. A customer without an email gets none.
 */
export const sendOnFinalize =
  (attachmentKinds: readonly AttachmentKind[]) =>
  async (tx: EntityManager, finalized: readonly { invoice: Invoice; actor: Actor; occurredAt: Date }[]): Promise<void> => {
    for (const { invoice, actor, occurredAt } of finalized) {
      const email = invoice.customer_snapshot?.email;
      if (!email) continue;
      await queueMessage(tx, { kind: 'invoice', invoice, to: [email], cc: [], note: null, kinds: attachableKinds(invoice, attachmentKinds), actor, now: occurredAt });
    }
  };
