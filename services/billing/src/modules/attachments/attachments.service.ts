import { BILLING_SUBJECTS, parsePublicId, toPublicId, type CreateInvoiceAttachmentBody, type InvoiceAttachment } from '@invoicing/contracts';
import { notFound } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { addBillingEvent } from '../../shared/events.ts';
import { assertEditable, invoiceView } from '../invoices/invoice.domain.ts';
import { invoiceIdOf, workspaceMoment, type InvoiceDeps, type WorkspaceMoment } from '../invoices/invoice-deps.ts';
import type { InvoiceRow } from '../invoices/invoice.entity.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { timelineRepository } from '../timeline/timeline.repository.ts';
import { assertContentMatchesType, assertRoomForAnother, attachmentListing, decodeContent, newAttachment } from './attachment.domain.ts';
import { attachmentRepository, type ListedContent } from './attachment.repository.ts';

/** The UUID behind an attachment path ID; a malformed one names nothing (404). */
const attachmentIdOf = (publicId: string): string => {
  const id = parsePublicId('invoiceAttachment', publicId);
  if (id === undefined) throw notFound('attachment', publicId);
  return id;
};

/**
 * Supporting documents of drafts (decisions.md, "EN 16931 business terms beyond the first set"):
 * each change locks the draft, writes the file and the draft's listing, and reports the draft as
 * PATCH does (an `updated` timeline entry, `invoice.updated`, a later `updated_at`, so a finalize
 * that read the draft before sees it changed). A finalized invoice's documents never change.
 */
export const attachmentsService = (deps: InvoiceDeps) => {
  const { em, announce } = deps;
  const invoices = invoiceRepository(em);
  const attachments = attachmentRepository(em);
  const timeline = timelineRepository(em);

  /** Inside a transaction: the draft locked, changed by `change` (which answers its new listing), then reported. */
  const changeDraft = async (actor: Actor, publicId: string, change: (tx: EntityManager, draft: InvoiceRow) => Promise<InvoiceAttachment[]>, moment: WorkspaceMoment) => {
    const id = invoiceIdOf(publicId);
    await em.transactional(async (tx) => {
      const row = await invoices.findForUpdate(tx, actor.workspaceId, id);
      if (!row) throw notFound('invoice', publicId);
      assertEditable(row, 'edited');
      const listed = await change(tx, row);
      tx.assign(row, { attachments: listed, updatedAt: new Date(Math.max(moment.now.getTime(), row.updatedAt.getTime() + 1)) });
      const updated = invoiceView(row, await invoices.linesOf(tx, id), moment.view);
      timeline.add(tx, timelineEntry(row, { type: 'updated' }, actor, moment.now));
      await addBillingEvent(tx, BILLING_SUBJECTS.invoiceUpdated, { object: updated }, actor, moment.now);
    });
    announce();
  };

  return {
    add: async (actor: Actor, publicId: string, body: CreateInvoiceAttachmentBody) => {
      // As PATCH: an unknown invoice is 404 and a finalized one 409 whatever the body holds; the
      // file is checked before anything is locked (decoding 10 MB takes milliseconds), and the
      // limit of documents again on the locked draft.
      const current = await invoices.findInWorkspace(actor.workspaceId, invoiceIdOf(publicId));
      if (!current) throw notFound('invoice', publicId);
      assertEditable(current, 'edited');
      const bytes = decodeContent(body.content_base64);
      assertContentMatchesType(bytes, body.content_type);
      assertRoomForAnother(current.attachments);
      const moment = await workspaceMoment(deps, actor);
      let added: InvoiceAttachment | undefined;
      await changeDraft(
        actor,
        publicId,
        async (tx, draft) => {
          // Counted on the locked draft: concurrent uploads queue on the lock and never pass the limit.
          assertRoomForAnother(draft.attachments);
          const row = newAttachment(draft, body, bytes, { lastPosition: await attachments.lastPositionOf(tx, draft.id), now: moment.now });
          await attachments.add(tx, row);
          added = attachmentListing(row);
          return [...draft.attachments, added];
        },
        moment,
      );
      return { data: added! };
    },

    remove: async (actor: Actor, publicId: string, attachmentPublicId: string): Promise<void> => {
      const attachmentId = attachmentIdOf(attachmentPublicId);
      const moment = await workspaceMoment(deps, actor);
      await changeDraft(
        actor,
        publicId,
        async (tx, draft) => {
          if (!(await attachments.remove(tx, draft.id, attachmentId))) throw notFound('attachment', attachmentPublicId);
          return draft.attachments.filter((listed) => parsePublicId('invoiceAttachment', listed.id) !== attachmentId);
        },
        moment,
      );
    },

    /**
     * For the documents service (its e-invoice exports): one file of a finalized invoice of the
     * workspace, with its entry in the invoice's frozen listing; undefined when there is none.
     */
    finalizedContent: (workspaceId: string, invoicePublicId: string, attachmentPublicId: string): Promise<ListedContent | undefined> => {
      const invoiceId = parsePublicId('invoice', invoicePublicId);
      const attachmentId = parsePublicId('invoiceAttachment', attachmentPublicId);
      if (invoiceId === undefined || attachmentId === undefined) return Promise.resolve(undefined);
      return attachments.finalizedContentOf(workspaceId, invoiceId, attachmentId, toPublicId('invoiceAttachment', attachmentId));
    },
  };
};

export type AttachmentsService = ReturnType<typeof attachmentsService>;
