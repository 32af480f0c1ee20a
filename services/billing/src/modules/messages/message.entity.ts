import type { AttachmentKind, MessageAttachment, MessageKind, MessageStatus } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const MessageEntity = defineEntity({
  name: 'Message',
  tableName: 'messages',
  properties: {
    id: p.uuid().primary(),
    workspaceId: p.uuid(),
    invoiceId: p.uuid(),
    kind: p.enum<readonly MessageKind[]>(['invoice', 'reminder']),
    toAddresses: p.json<string[]>(),
    ccAddresses: p.json<string[]>(),
    subject: p.text(),
    /** The sender's personal note, placed in the body only. */
    note: p.text().nullable(),
    attachmentKinds: p.json<AttachmentKind[]>(),
    /** What went out, with sizes; the names alone until it is sent. */
    attachments: p.json<MessageAttachment[]>(),
    /** A reminder's local day (one per invoice and day). */
    reminderOn: p.date().nullable(),
    status: p.enum<readonly MessageStatus[]>(['queued', 'sent', 'failed']),
    error: p.text().nullable(),
    attempts: p.integer(),
    lease: p.uuid().nullable(),
    nextAttemptAt: p.datetime(3).nullable(),
    correlationId: p.text().nullable(),
    sentAt: p.datetime(3).nullable(),
    createdAt: p.datetime(3),
  },
});
export type MessageRow = InferEntity<typeof MessageEntity>;

/** An address refused for good in a workspace: messages to it fail at once until the customer's email changes. */
export const EmailSuppressionEntity = defineEntity({
  name: 'EmailSuppression',
  tableName: 'email_suppressions',
  properties: {
    workspaceId: p.uuid().primary(),
    address: p.text().primary(),
    messageId: p.uuid(),
    reason: p.text(),
    /** Catalog showed a customer with this address as bounced: once it shows it `ok` again, its email changed since. */
    seenBounced: p.boolean(),
    createdAt: p.datetime(3),
  },
});
export type EmailSuppressionRow = InferEntity<typeof EmailSuppressionEntity>;
