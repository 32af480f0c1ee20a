import type { InvoiceAttachment } from '@invoicing/contracts';
import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { InvoiceAttachmentEntity, type InvoiceAttachmentRow } from './attachment.entity.ts';

/** One file of a finalized invoice as the documents service gets it: the bytes, and the entry that lists them. */
export interface ListedContent {
  listed: InvoiceAttachment;
  content: Buffer;
}

/** The files of supporting documents. Their listing lives on the invoice, written by the same transaction. */
export const attachmentRepository = (em: EntityManager) => ({
  /** The last place taken in the invoice's list (0: none yet), read while the invoice is locked. */
  lastPositionOf: async (tx: EntityManager, invoiceId: string): Promise<number> => {
    const { last } = await sqlOf<BillingDatabase>(tx)
      .selectFrom('invoice_attachments')
      .select(sql<number>`coalesce(max(position), 0)::integer`.as('last'))
      .where('invoice_id', '=', invoiceId)
      .executeTakeFirstOrThrow();
    return last;
  },

  add: async (tx: EntityManager, row: InvoiceAttachmentRow): Promise<void> => {
    await sqlOf<BillingDatabase>(tx).insertInto('invoice_attachments').values(entityColumns(tx, InvoiceAttachmentEntity, row)).execute();
  },

  /** Deletes one file of the invoice; false when it has none by that id. */
  remove: async (tx: EntityManager, invoiceId: string, id: string): Promise<boolean> => {
    const deleted = await sqlOf<BillingDatabase>(tx).deleteFrom('invoice_attachments').where('invoice_id', '=', invoiceId).where('id', '=', id).returning('id').execute();
    return deleted.length > 0;
  },

  /**
   * The file of a finalized (open, paid or void) invoice of the workspace, with the entry its frozen
   * listing has for it, in one statement; undefined for a draft, another workspace's invoice, or a
   * file the invoice does not list.
   */
  finalizedContentOf: async (workspaceId: string, invoiceId: string, id: string, listedId: string): Promise<ListedContent | undefined> => {
    const row = await sqlOf<BillingDatabase>(em)
      .selectFrom('invoice_attachments as a')
      .innerJoin('invoices as i', 'i.id', 'a.invoice_id')
      .select(['a.content', sql<InvoiceAttachment | null>`(select entry from jsonb_array_elements(i.attachments) as entry where entry ->> 'id' = ${listedId})`.as('listed')])
      .where('a.id', '=', id)
      .where('a.invoice_id', '=', invoiceId)
      .where('i.workspace_id', '=', workspaceId)
      .where('i.status', '<>', 'draft')
      .executeTakeFirst();
    return row?.listed ? { listed: row.listed, content: row.content } : undefined;
  },
});

export type AttachmentRepository = ReturnType<typeof attachmentRepository>;
