import { parsePublicId, type PageQuery, type SendInvoiceBody } from '@invoicing/contracts';
import { notFound, type CursorCodec } from '@invoicing/service-kit';
import type { z } from 'zod';
import type { Actor } from '../../shared/actor.ts';
import { invoiceView } from '../invoices/invoice.domain.ts';
import { invoiceIdOf, workspaceMoment, type InvoiceDeps } from '../invoices/invoice-deps.ts';
import { invoiceRepository } from '../invoices/invoice.repository.ts';
import { assertSendable, distinctAddresses, messageView, normalizedAddress, orderedKinds } from './message.domain.ts';
import { messageRepository } from './message.repository.ts';
import { followCustomerEmailStatus, queueMessage } from './queue-message.ts';

/** Sending an invoice by e-mail, and reading what was sent. */
export const messageService = (deps: InvoiceDeps, cursors: CursorCodec) => {
  const { em, catalog } = deps;
  const invoices = invoiceRepository(em);
  const messages = messageRepository(em);

  return {
    /**
     * Queues one message in the request's transaction (the kit's keyed write: the answer is recorded
     * with it), to `to` or the customer's email as catalog has it now.
     */
    send: async (actor: Actor, publicId: string, body: SendInvoiceBody | undefined) => {
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
      if (!loaded) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, loaded.account, loaded.invoice.testClockId);
      const invoice = invoiceView(loaded.invoice, loaded.lines, moment.view);
      const customer = await catalog.customer(actor, loaded.invoice.customerId);
      await followCustomerEmailStatus(em, actor.workspaceId, customer);
      const to = distinctAddresses(body?.to ?? (customer?.email ? [customer.email] : []));
      const toKeys = new Set(to.map(normalizedAddress));
      const cc = distinctAddresses(body?.cc ?? []).filter((address) => !toKeys.has(normalizedAddress(address)));
      const kinds = orderedKinds(body?.attachments ?? moment.account.emailAttachments);
      assertSendable(invoice, to, kinds);
      const row = await queueMessage(em, { kind: 'invoice', invoice, to, cc, note: body?.message ?? null, kinds, actor, now: moment.now });
      deps.announce();
      return { data: messageView(row!) };
    },

    list: async (actor: Actor, publicId: string, query: z.output<typeof PageQuery>) => {
      const id = invoiceIdOf(publicId);
      if (!(await invoices.findInWorkspace(actor.workspaceId, id))) throw notFound('invoice', publicId);
      const pages = cursors.forList(`invoices/${id}/messages`, actor.workspaceId);
      const rows = await messages.pageOfInvoice(id, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(
        rows.map((row) => ({ row, created: row.createdAt, id: row.id })),
        query.limit,
        ({ row }) => messageView(row),
      );
    },

    retrieve: async (actor: Actor, publicId: string) => {
      const id = parsePublicId('message', publicId);
      const row = id === undefined ? null : await messages.findInWorkspace(actor.workspaceId, id);
      if (!row) throw notFound('message', publicId);
      return { data: messageView(row) };
    },
  };
};

export type MessageService = ReturnType<typeof messageService>;
