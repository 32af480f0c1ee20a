import { z } from 'zod';
import { dataOf, Livemode, EMAIL_MAX, PageQuery, pageOf, Timestamp } from '../common.ts';
import { IdPathParams } from '../ids.ts';
import { defineOperation } from '../operation.ts';

/** E-mail delivery of invoices (decisions.md, "E-mail delivery"). */

/** What a message may carry: the plain PDF, the Factur-X PDF, or an e-invoice XML in a syntax and profile. */
export const ATTACHMENT_KINDS = ['pdf', 'facturx', 'ubl', 'cii', 'xrechnung_ubl', 'xrechnung_cii'] as const;
export const AttachmentKind = z.enum(ATTACHMENT_KINDS).meta({ id: 'AttachmentKind', description: 'The plain PDF (`pdf`), the Factur-X PDF (`facturx`), or an e-invoice XML: `ubl`, `cii` (EN 16931), `xrechnung_ubl`, `xrechnung_cii`.' });
export type AttachmentKind = z.infer<typeof AttachmentKind>;

export const MESSAGE_KINDS = ['invoice', 'reminder'] as const;
export const MessageKind = z.enum(MESSAGE_KINDS);
export type MessageKind = z.infer<typeof MessageKind>;

export const MESSAGE_STATUSES = ['queued', 'sent', 'failed'] as const;
export const MessageStatus = z.enum(MESSAGE_STATUSES);
export type MessageStatus = z.infer<typeof MessageStatus>;

/** To and cc together. */
export const MESSAGE_RECIPIENTS_MAX = 10;
export const MESSAGE_TEXT_MAX = 2000;
/** The whole of a message's attachments, decoded (most mail servers refuse a message above 10–25 MB). */
export const MESSAGE_ATTACHMENTS_MAX_BYTES = 10_000_000;
export const REMINDER_DAYS_MAX = 10;

/**
 * One address, as SMTP carries it in an envelope: no display name, no comments, no group syntax,
 * nothing that could end a header or add a recipient (CR, LF, comma, semicolon, angle brackets,
 * quotes, whitespace); ASCII only, since an address is not re-encoded on its way.
 */
export const RecipientAddress = z
  .email({ pattern: /^[A-Za-z0-9.!#$%&'*+/=?^_`{|}~-]+@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/ })
  .max(EMAIL_MAX)
  // Valid in a local part, but a mail reader may decode it as an RFC 2047 encoded word.
  .refine((address) => !address.includes('=?'), 'may not contain "=?"')
  .meta({ description: 'One email address (ASCII, no display name).', example: 'accounts@buyer.example' });

const recipients = z.array(RecipientAddress).max(MESSAGE_RECIPIENTS_MAX);

export const SendInvoiceBody = z
  .strictObject({
    to: recipients.min(1).optional().describe("Recipients; default: the customer's `email` (none at all: 400)."),
    cc: recipients.optional().describe('Copies; default none.'),
    message: z
      .string()
      .max(MESSAGE_TEXT_MAX)
      .optional()
      .describe('A personal note placed above the invoice summary in the body (never in a header).'),
    attachments: z
      .array(AttachmentKind)
      .max(ATTACHMENT_KINDS.length)
      .refine((kinds) => new Set(kinds).size === kinds.length, 'may not name one attachment twice')
      .meta({ uniqueItems: true })
      .optional()
      .describe("What to attach; default: the account's `email_attachments` (`[\"pdf\"]` unless changed)."),
  })
  .superRefine((body, ctx) => {
    const count = (body.to?.length ?? 1) + (body.cc?.length ?? 0);
    if (count > MESSAGE_RECIPIENTS_MAX) ctx.addIssue({ code: 'custom', path: ['cc'], message: `at most ${MESSAGE_RECIPIENTS_MAX} recipients in to and cc together` });
  })
  .meta({ id: 'SendInvoiceBody', examples: [{ to: ['accounts@buyer.example'], cc: [], message: 'Thank you for your order.', attachments: ['pdf', 'xrechnung_cii'] }] });
export type SendInvoiceBody = z.infer<typeof SendInvoiceBody>;

export const MessageAttachment = z
  .object({ filename: z.string(), content_type: z.string(), size: z.int().describe('Bytes; 0 until the message is sent.') })
  .meta({ id: 'MessageAttachment' });
export type MessageAttachment = z.infer<typeof MessageAttachment>;

export const Message = z
  .object({
    id: z.string().meta({ example: 'msg_0190f3e2c1b27a8e9d1f3c4b5a697887' }),
    object: z.literal('message'),
    livemode: Livemode,
    invoice: z.string().describe('`in_` ID.'),
    kind: MessageKind,
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string(),
    attachments: z.array(MessageAttachment),
    status: MessageStatus,
    error: z.string().nullable().describe('Why it failed (`suppressed`, or the SMTP answer); the last temporary refusal while it is retried.'),
    attempts: z.int(),
    sent_at: Timestamp.nullable(),
    created: Timestamp,
  })
  .meta({ id: 'Message' });
export type Message = z.infer<typeof Message>;

const tag = 'Messages';
const service = 'billing';

export const sendInvoice = defineOperation({
  operationId: 'sendInvoice',
  summary: 'E-mail an invoice',
  description:
    'Queues a `message` to the customer (or `to`), sent over SMTP with the attachments chosen, a subject and body in the invoice language, the public link and `Reply-To` the account’s `reply_to`. The message is delivered at least once with one `Message-ID`; temporary refusals are retried, a permanent one fails it and suppresses the address. A draft or void invoice: 409 `invalid_state`; no recipient at all: 400.',
  tag, service, method: 'POST', path: '/api/v1/invoices/:id/send', scope: 'invoices:send', idempotency: 'required',
  params: IdPathParams,
  body: SendInvoiceBody,
  bodyOptional: true,
  errors: [404, 409, 429],
  responses: { 202: { description: 'The queued message.', schema: dataOf(Message) } },
});

export const listInvoiceMessages = defineOperation({
  operationId: 'listInvoiceMessages',
  summary: "An invoice's e-mails, newest first",
  tag, service, method: 'GET', path: '/api/v1/invoices/:id/messages', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  query: PageQuery,
  responses: { 200: { description: 'A page of messages.', schema: pageOf(Message) } },
});

export const retrieveMessage = defineOperation({
  operationId: 'retrieveMessage',
  summary: 'Retrieve a message',
  tag, service, method: 'GET', path: '/api/v1/messages/:id', scope: 'invoices:read', idempotency: 'none',
  params: IdPathParams,
  responses: { 200: { description: 'The message.', schema: dataOf(Message) } },
});

export const messageOperations = [sendInvoice, listInvoiceMessages, retrieveMessage];
