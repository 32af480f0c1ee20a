import { randomBytes } from 'node:crypto';
import { BILLING_SUBJECTS, type InvoiceByPublicToken } from '@invoicing/contracts';
import { invalidState, notFound } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { invoiceView } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

/** 192 random bits, URL-safe: a public link cannot be guessed. */
export const newPublicUrlToken = (): string => randomBytes(24).toString('base64url');

/**
 * The public link of a finalized invoice: the lookup behind the public pages, and its rotation.
 * A rotated-away token names nothing any more. The link is a credential, not part of the
 * document: rotating it leaves snapshot_sha256 and the chain as they were.
 */
export const publicLinks = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);

  return {
    /** The finalized invoice behind a token, as the API reads it now, and its workspace; a 404 for anything else. */
    byToken: async (token: string): Promise<InvoiceByPublicToken> => {
      const found = await invoices.findIssuedByPublicToken(token);
      if (!found) throw notFound('invoice', 'behind this link');
      const actor: Actor = { workspaceId: found.invoice.workspaceId, keyId: null, requestId: '', idempotencyKey: null };
      const moment = await workspaceMoment(deps, actor, found.account);
      return { workspace_id: found.invoice.workspaceId, invoice: invoiceView(found.invoice, found.lines, moment.view) };
    },

    rotate: (actor: Actor, publicId: string) =>
      retryingStaleReads(async () => {
        const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
        if (!loaded) throw notFound('invoice', publicId);
        const { invoice, lines } = loaded;
        if (invoice.status === 'draft') throw invalidState('This invoice is a draft: it gets a public link when it is finalized.');
        const moment = await workspaceMoment(deps, actor, loaded.account);
        const rotated: InvoiceRow = { ...invoice, publicUrlToken: newPublicUrlToken(), updatedAt: moment.now };
        const view = invoiceView(rotated, lines, moment.view);
        const written = await invoices.changeWhileStatus({
          invoice: rotated,
          properties: ['publicUrlToken', 'updatedAt'],
          whileStatus: invoice.status,
          entry: timelineEntry(rotated, { type: 'updated' }, actor, moment.now),
          event: billingEvent(BILLING_SUBJECTS.invoiceUpdated, { object: view }, actor, moment.now),
        });
        // Paid or voided in between: read it again, so the event carries the status it now has.
        if (written !== 'changed') throw new StaleRead();
        deps.announce();
        return { data: view };
      }),
  };
};

export type PublicLinks = ReturnType<typeof publicLinks>;
