import { BILLING_SUBJECTS, toPublicId, type MessageAttachment } from '@invoicing/contracts';
import { DocumentRefusedError, DocumentTooLargeError, PeriodicTask, type Orm, type ServiceClient } from '@invoicing/service-kit';
import { AppError } from '@invoicing/service-kit/app-error';
import type { Clock } from '@invoicing/service-kit/clock';
import { livemodeOf } from '@invoicing/service-kit/data-space';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Actor } from '../../shared/actor.ts';
import { localDateOf } from '../../shared/clock.ts';
import { addBillingEvent, billingEvent } from '../../shared/events.ts';
import { defaultAccount } from '../account/account.domain.ts';
import { invoiceView } from '../invoices/invoice.domain.ts';
import { clockFor } from '../invoices/invoice-deps.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import type { MailTransport, OutgoingMail } from './mail-transport.ts';
import { headerText, composeEmail } from './message-templates.ts';
import { ATTACHMENT_SOURCES, attachmentFilename, messageIdHeader, messageView, normalizedAddress, secondsUntilRetry } from './message.domain.ts';
import { messageRepository, type ClaimedMessage } from './message.repository.ts';
import { MESSAGE_ATTACHMENTS_MAX_BYTES } from '@invoicing/contracts';

export interface MailWorkerOptions {
  orm: Orm;
  /** Where each mode's e-mails go: test mode's, by default, only to files (TEST_MODE_MAIL). */
  transports: { live: MailTransport; test: MailTransport };
  /** The documents service: the stored PDFs and e-invoices a message attaches. */
  documents: ServiceClient;
  clock: Clock;
  publicUrlBase: string;
  /** `MAIL_FROM`: its address, and the name shown when the workspace has no business name. */
  from: { name: string; address: string };
  /** `MAIL_RETRY_SCHEDULE`: seconds before each attempt after a temporary refusal. */
  schedule: readonly number[];
  /** How long a claim holds a message: longer than fetching its documents and sending it may take. */
  leaseMs: number;
  concurrency: number;
  pollMs: number;
  /** Tells the outbox relay that events wait. */
  announce: () => void;
  onError: (error: unknown) => void;
  log: FastifyBaseLogger;
}

const BACKOFF = { firstMs: 250, maxMs: 30_000 };

/** `Invoices <invoices@example.com>` or `invoices@example.com`, split. */
export const parseMailFrom = (value: string): { name: string; address: string } => {
  const match = /^(.*)<([^<>]+)>\s*$/.exec(value);
  return match ? { name: match[1]!.trim().replace(/^"|"$/g, ''), address: match[2]!.trim() } : { name: '', address: value.trim() };
};

/**
 * Sends queued messages, up to `concurrency` at a time, as the webhook worker delivers: messages
 * are claimed from PostgreSQL under a lease (FOR UPDATE SKIP LOCKED), so replicas share the work
 * without sending one attempt twice, and a process that dies mid-send leaves its claims to be taken
 * over when the lease runs out. The message goes out at least once, always with the same
 * `Message-ID`: a process killed between the server's answer and the commit sends it again, and
 * the receiving side can tell it is the same message.
 */
export class MailWorker {
  readonly #options: MailWorkerOptions;
  readonly #inFlight = new Set<Promise<void>>();
  readonly #loop: PeriodicTask;
  readonly #domain: string;

  constructor(options: MailWorkerOptions) {
    this.#options = options;
    this.#domain = options.from.address.split('@')[1] ?? 'localhost';
    this.#loop = new PeriodicTask({ intervalMs: options.pollMs, backoff: BACKOFF, onError: options.onError, run: () => this.#claimAndSend() });
  }

  start(): void {
    this.#loop.start();
  }

  /** Looks for due messages now: after a commit that queued some. */
  nudge(): void {
    this.#loop.nudge();
  }

  async stop(): Promise<void> {
    await this.#loop.stop();
    await Promise.allSettled([...this.#inFlight]);
  }

  async #claimAndSend(): Promise<boolean> {
    const free = this.#options.concurrency - this.#inFlight.size;
    if (free <= 0) return false;
    const claimed = await messageRepository(this.#options.orm.em.fork()).claimDue(free, this.#options.leaseMs);
    for (const message of claimed) this.#track(this.#deliver(message));
    return claimed.length > 0 && claimed.length === free;
  }

  #track(sending: Promise<void>): void {
    const tracked: Promise<void> = sending.catch(this.#options.onError).finally(() => {
      this.#inFlight.delete(tracked);
      this.nudge();
    });
    this.#inFlight.add(tracked);
  }

  async #deliver(claimed: ClaimedMessage): Promise<void> {
    const { orm, clock, publicUrlBase } = this.#options;
    const em = orm.em.fork();
    const messages = messageRepository(em);
    const system: Actor = { workspaceId: claimed.workspaceId, keyId: null, requestId: claimed.correlationId ?? `message-${claimed.id}`, idempotencyKey: null };
    const loaded = await invoiceRepository(em).findWithLinesAndSettings(claimed.workspaceId, claimed.invoiceId);
    if (!loaded) return this.#fail(claimed, system, 'the invoice no longer exists', false);
    // A message about an invoice on a test clock is dated by the clock.
    const invoiceClock = await clockFor({ em, clock }, loaded.invoice.testClockId);
    const now = invoiceClock.now();
    const account = loaded.account ?? defaultAccount(claimed.workspaceId, now);
    const view = { today: localDateOf(now, account.timezone).date, publicUrlBase };
    const invoice = invoiceView(loaded.invoice, loaded.lines, view);
    // A reminder is about money still owed: once the invoice is paid or void there is nothing to remind of.
    if (claimed.kind === 'reminder' && (invoice.status === 'paid' || invoice.status === 'void')) return this.#fail(claimed, system, `the invoice is ${invoice.status}`, false);
    const recipients = [...claimed.toAddresses, ...claimed.ccAddresses];
    if ((await messages.suppressedAmong(claimed.workspaceId, recipients.map(normalizedAddress))).length > 0) return this.#fail(claimed, system, 'suppressed', false);

    let attachments: OutgoingMail['attachments'];
    try {
      attachments = await this.#fetchAttachments(claimed, system, invoice.number);
    } catch (error) {
      if (error instanceof DocumentTooLargeError) return this.#fail(claimed, system, `attachments: ${error.message}`, false);
      if (error instanceof DocumentRefusedError) return this.#fail(claimed, system, `attachment: ${error.message}`, false);
      return this.#retryOrFail(claimed, system, `attachment: ${error instanceof AppError ? error.message : String(error)}`);
    }
    const content = composeEmail({ kind: claimed.kind, invoice, note: claimed.note ?? null, locale: invoice.locale }, attachments.map((each) => each.filename));
    const mail: OutgoingMail = {
      messageId: messageIdHeader(claimed.id, this.#domain),
      from: { name: headerText(account.businessName ?? this.#options.from.name, 120), address: this.#options.from.address },
      replyTo: account.replyTo ?? null,
      to: claimed.toAddresses,
      cc: claimed.ccAddresses,
      // The subject stored when it was queued is the one the API shows.
      subject: claimed.subject,
      text: content.text,
      html: content.html,
      attachments,
    };
    // Everything the record of success needs is made before sending, so nothing but one statement follows the server's answer.
    const sentAttachments: MessageAttachment[] = attachments.map((each) => ({ filename: each.filename, content_type: each.contentType, size: each.content.length }));
    const sentEvent = billingEvent(claimed.kind === 'reminder' ? BILLING_SUBJECTS.invoiceReminderSent : BILLING_SUBJECTS.invoiceSent, { object: invoice }, system, invoiceClock.now());
    const startedAt = Date.now();
    const result = await this.#options.transports[livemodeOf(claimed.workspaceId) ? 'live' : 'test'].send(mail);
    const logFields = {
      request_id: claimed.correlationId ?? undefined,
      workspace_id: claimed.workspaceId,
      message_id: toPublicId('message', claimed.id),
      invoice_id: toPublicId('invoice', claimed.invoiceId),
      kind: claimed.kind,
      attempt: claimed.attempts + 1,
      latency_ms: Date.now() - startedAt,
    };
    if (result.outcome === 'sent') {
      // Recorded at once, in one statement: a crash from here to its commit sends the message again (same Message-ID).
      if (await messages.markSent(claimed, sentAttachments, sentEvent)) {
        const permanentlyRefused = result.refused.filter((each) => each.permanent).map((each) => each.address);
        if (permanentlyRefused.length > 0) {
          await em.fork().transactional((tx) => this.#suppress(tx, claimed, system, permanentlyRefused, 'refused while the other recipients were accepted'));
        }
      }
      this.#options.announce();
      if (result.file) this.#options.log.info({ ...logFields, outcome: 'written', path: result.file }, `e-mail written to ${result.file}`);
      else this.#options.log.info({ ...logFields, outcome: 'sent', refused: result.refused.length }, 'e-mail delivery attempted');
      return;
    }
    this.#options.log.info({ ...logFields, outcome: result.permanent ? 'refused' : 'deferred', error: result.error }, 'e-mail delivery attempted');
    if (result.permanent) return this.#fail(claimed, system, result.error, true, result.refused.length > 0 ? result.refused : recipients);
    return this.#retryOrFail(claimed, system, result.error);
  }

  async #fetchAttachments(claimed: ClaimedMessage, system: Actor, invoiceNumber: string | null): Promise<OutgoingMail['attachments']> {
    const invoiceId = toPublicId('invoice', claimed.invoiceId);
    const caller = { workspaceId: claimed.workspaceId, apiKeyId: 'system', requestId: system.requestId, idempotencyKey: undefined };
    const attachments: OutgoingMail['attachments'] = [];
    let budget = MESSAGE_ATTACHMENTS_MAX_BYTES;
    for (const kind of claimed.attachmentKinds) {
      const source = ATTACHMENT_SOURCES[kind];
      const document = await this.#options.documents.getDocument(source.path(invoiceId), caller, budget).catch((error: unknown) => {
        // Said in the message's terms: the API shows this error, and the internal route means nothing there.
        if (error instanceof DocumentTooLargeError) throw new DocumentTooLargeError(`together larger than ${MESSAGE_ATTACHMENTS_MAX_BYTES} bytes, the limit of one message (${kind} takes them over)`);
        throw error;
      });
      if (!document) throw new DocumentRefusedError(`documents has no ${kind} for ${invoiceId}`);
      budget -= document.bytes.length;
      attachments.push({ filename: attachmentFilename(invoiceNumber, kind), contentType: source.contentType, content: document.bytes });
    }
    return attachments;
  }

  /** A temporary failure: again after the next delay of the schedule, or failed once it is spent. */
  async #retryOrFail(claimed: ClaimedMessage, system: Actor, error: string): Promise<void> {
    const retryInS = secondsUntilRetry(this.#options.schedule, claimed.attempts + 1);
    if (retryInS === undefined) return this.#fail(claimed, system, error, true);
    await messageRepository(this.#options.orm.em.fork()).markRetry(claimed, error, retryInS);
    if (retryInS === 0) this.nudge();
  }

  /** Gives the message up with `message.failed`; a permanent refusal also suppresses the addresses it names. */
  async #fail(claimed: ClaimedMessage, system: Actor, error: string, attempted: boolean, suppress: readonly string[] = []): Promise<void> {
    await this.#options.orm.em.fork().transactional(async (tx) => {
      const messages = messageRepository(tx);
      if (!(await messages.markFailed(tx, claimed, error, attempted))) return;
      const failed = { ...claimed, status: 'failed' as const, error, attempts: claimed.attempts + (attempted ? 1 : 0), lease: null, nextAttemptAt: null };
      await addBillingEvent(tx, BILLING_SUBJECTS.messageFailed, { object: messageView(failed) }, system, this.#options.clock.now());
      await this.#suppress(tx, claimed, system, suppress, error);
    });
    this.#options.announce();
  }

  async #suppress(tx: EntityManager, claimed: ClaimedMessage, system: Actor, addresses: readonly string[], reason: string): Promise<void> {
    if (addresses.length === 0) return;
    const added = await messageRepository(tx).suppress(tx, claimed.workspaceId, [...new Set(addresses.map(normalizedAddress))], claimed.id, reason.slice(0, 500));
    for (const address of added) {
      await addBillingEvent(tx, BILLING_SUBJECTS.emailSuppressed, { address, message: toPublicId('message', claimed.id) }, system, this.#options.clock.now());
    }
  }
}
