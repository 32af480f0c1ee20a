import {
  BILLING_SUBJECTS,
  parsePublicId,
  type CreateInvoiceBody,
  type Invoice,
  type ListInvoicesQuery,
  type PageQuery,
  type UpdateInvoiceBody,
} from '@invoicing/contracts';
import { AlreadyRecorded, AppError, notFound, timeBound, unavailable, type CursorCodec, type SelfRecordedWrite } from '@invoicing/service-kit';
import type { z } from 'zod';
import type { Actor } from '../../shared/actor.ts';
import { addBillingEvent, billingEvent } from '../../shared/events.ts';
import { timelineEntry, timelineView } from '../timeline/timeline.domain.ts';
import { timelineRepository } from '../timeline/timeline.repository.ts';
import { assertDraftAfter, assertEditable, changesAnything, documentAdjustmentsAfter, draftChanges, invoiceView, newDraft, priceLines, totalsColumns, type SubscriptionPeriod, type ViewContext } from './invoice.domain.ts';
import { adjustmentsOf, assertDocumentTerms } from './document-terms.domain.ts';
import { invoiceIdOf, repriceStoredLines, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import { customersNow, refuseDeletedCustomer, requireCustomer, resolveItems } from './invoice-items.ts';
import { invoiceViewNow } from './finalization.domain.ts';
import { invoiceRepository } from './invoice.repository.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';
import { localDateOf } from '../../shared/clock.ts';
import { testClockRepository } from '../test-clocks/test-clock.repository.ts';
import type { InvoiceTotals } from './invoice-totals.domain.ts';

/** Drafts and reads: create, list, retrieve, PATCH, delete, timeline. */
export const invoiceService = (deps: InvoiceDeps, cursors: CursorCodec) => {
  const { em, catalog, announce } = deps;
  const invoices = invoiceRepository(em);
  const timeline = timelineRepository(em);

  /** A subscription period's invoice as it is now, as the create answers it; undefined when the period has none. */
  const periodInvoice = async (actor: Actor, subscription: SubscriptionPeriod) => {
    const existing = await invoices.findPeriodInvoiceWithLinesAndSettings(actor.workspaceId, subscription.id, subscription.periodStart);
    if (!existing) return undefined;
    const moment = await workspaceMoment(deps, actor, existing.account, existing.invoice.testClockId);
    return { data: invoiceView(existing.invoice, existing.lines, moment.view) };
  };

  return {
    /**
     * A keyed request's answer is recorded by the statement that writes the draft (`keyed`, see
     * SelfRecordedWrite). `subscription`: the subscription making the draft and the first day of
     * the period it bills (billing's internal route for the subscriptions service); a period that
     * has an invoice already (made under any key, the key's record purged since or not) is answered
     * with that invoice as it is now, with the create's status, and nothing is written: the
     * outcome is then recorded on its own (runSelfRecorded), as for an answer that wrote nothing.
     */
    create: async (actor: Actor, body: CreateInvoiceBody, keyed?: SelfRecordedWrite, subscription: SubscriptionPeriod | null = null) => {
      const draft = async () => {
        // A customer on a test clock: the invoice lives on it too, and its dates follow the clock's time.
        const customer = await requireCustomer(catalog, actor, body.customer);
        const testClockId = customer.test_clock ? (parsePublicId('testClock', customer.test_clock) ?? null) : null;
        const moment = await workspaceMoment(deps, actor, undefined, testClockId);
        const currency = body.currency ?? moment.account.defaultCurrency;
        const row = newDraft(actor.workspaceId, body, { customerName: '', currency, today: moment.local.date, now: moment.now, subscription, testClockId });
        const drafts = await resolveItems(catalog, actor, body.items, currency);
        refuseDeletedCustomer(customer);
        const { rows: lines, totals } = priceLines(row, drafts, adjustmentsOf(row));
        Object.assign(row, totalsColumns(totals), { customerName: customer.name });
        assertDocumentTerms(row);
        return { row, lines, moment, customer };
      };
      let drafted: Awaited<ReturnType<typeof draft>>;
      try {
        drafted = await draft();
      } catch (error) {
        // A period that has its invoice is answered with it even when its request would be refused
        // now (its customer deleted, a price archived since): the period is invoiced.
        if (subscription && error instanceof AppError && error.status < 500) {
          const existing = await periodInvoice(actor, subscription);
          if (existing) return existing;
        }
        throw error;
      }
      const { row, lines, moment, customer } = drafted;
      const view = invoiceViewNow(row, lines, moment.view, { customer, account: moment.account });
      const event = billingEvent(BILLING_SUBJECTS.invoiceCreated, { object: view }, actor, moment.now);
      const answer = { data: view };
      const outcome = keyed && { writes: keyed.writes, claim: keyed.claim, outcome: keyed.outcomeOf(answer) };
      const entry = timelineEntry(row, { type: 'created' }, actor, moment.now);
      if (subscription) {
        const written = await invoices.insertPeriodDraft(row, lines, entry, event, outcome);
        if (written === 'key-held') throw new AlreadyRecorded();
        if (written === 'period-invoiced') {
          const existing = await periodInvoice(actor, subscription);
          // Deleted (a draft) between the insert and this read: the period is free again, and a retry writes its invoice.
          if (!existing) throw unavailable('the period’s invoice changed while this request ran; retry.');
          return existing;
        }
      }
      // The key already holds the outcome of this request, made before: that is the answer.
      else if (!(await invoices.insertDraft(row, lines, entry, event, outcome))) throw new AlreadyRecorded();
      if (outcome) keyed!.committed(outcome.outcome);
      announce();
      return answer;
    },

    list: async (actor: Actor, query: ListInvoicesQuery) => {
      const moment = await workspaceMoment(deps, actor);
      // In a test space, an invoice on a test clock is open or overdue by its clock's day.
      const clockTimes = livemodeOf(actor.workspaceId) ? new Map<string, Date>() : await testClockRepository(em).frozenTimesInWorkspace(actor.workspaceId);
      const clockTodays = new Map([...clockTimes].map(([id, at]) => [id, localDateOf(at, moment.account.timezone).date]));
      const filter = {
        customerId: query.customer,
        status: query.status,
        q: query.q,
        createdFrom: timeBound(query['created[gte]'], 'start'),
        createdUntil: timeBound(query['created[lte]'], 'end'),
        metadata: query.metadata,
        today: moment.local.date,
        clockTodays,
      };
      const pages = cursors.forList('invoices', actor.workspaceId);
      const rows = await invoices.pageNewestFirst(actor.workspaceId, filter, pages.positionOf(query.cursor), query.limit);
      const pageRows = rows.slice(0, query.limit);
      // The drafts' readiness needs their customers as they are now: one catalog read per customer
      // on the page, at once, with the lines; finalized invoices read their snapshots.
      const [lines, customers] = await Promise.all([
        invoices.linesOfEach(pageRows.map((row) => row.id)),
        customersNow(catalog, actor, pageRows.filter((row) => row.status === 'draft').map((row) => row.customerId)),
      ]);
      const viewOf = (row: InvoiceRow): ViewContext => {
        const today = row.testClockId ? clockTodays.get(row.testClockId) : undefined;
        return today ? { ...moment.view, today } : moment.view;
      };
      return pages.toPage(
        rows.map((row) => ({ row, created: row.createdAt, id: row.id })),
        query.limit,
        ({ row }) => invoiceViewNow(row, lines.get(row.id) ?? [], viewOf(row), { customer: customers.get(row.customerId), account: moment.account }),
      );
    },

    retrieve: async (actor: Actor, publicId: string) => {
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
      if (!loaded) throw notFound('invoice', publicId);
      const { invoice } = loaded;
      const [moment, customers] = await Promise.all([
        workspaceMoment(deps, actor, loaded.account, invoice.testClockId),
        invoice.status === 'draft' ? customersNow(catalog, actor, [invoice.customerId]) : undefined,
      ]);
      return { data: invoiceViewNow(invoice, loaded.lines, moment.view, { customer: customers?.get(invoice.customerId), account: moment.account }) };
    },

    update: (actor: Actor, publicId: string, patch: UpdateInvoiceBody) =>
      retryingStaleReads(async () => {
        const id = invoiceIdOf(publicId);
        const current = await invoices.findInWorkspace(actor.workspaceId, id);
        if (!current) throw notFound('invoice', publicId);
        const moment = await workspaceMoment(deps, actor, undefined, current.testClockId);
        assertEditable(current, 'edited');
        const currency = patch.currency ?? current.currency;
        // The draft keeps its customer: read for its readiness only, so a catalog that cannot answer leaves that null.
        const [customer, drafts, kept] = await Promise.all([
          patch.customer !== undefined ? requireCustomer(catalog, actor, patch.customer) : undefined,
          patch.items !== undefined ? resolveItems(catalog, actor, patch.items, currency) : undefined,
          patch.customer === undefined ? customersNow(catalog, actor, [current.customerId]) : undefined,
        ]);
        const outcome = await em.transactional(async (tx) => {
          const row = await invoices.findForUpdate(tx, actor.workspaceId, id);
          if (!row) throw notFound('invoice', publicId);
          assertEditable(row, 'edited');
          // The items were priced in the currency read before the lock; another PATCH may have changed it since.
          if (currency !== (patch.currency ?? row.currency)) throw new StaleRead();
          // Checked against the locked row: the customer the draft has already may stay, even deleted.
          if (customer && patch.customer !== row.customerId) refuseDeletedCustomer(customer);
          let lines: InvoiceLineRow[];
          let totals: InvoiceTotals;
          const adjustments = documentAdjustmentsAfter(row, patch);
          if (drafts) {
            ({ rows: lines, totals } = priceLines(row, drafts, adjustments));
            await invoices.replaceLines(tx, id, lines);
          } else {
            lines = await invoices.linesOf(tx, id);
            if (currency !== row.currency) {
              // Catalog lines were priced in the old currency: they go; ad-hoc lines keep their amounts.
              lines = lines.filter((line) => line.priceId == null);
              await invoices.dropCatalogLines(tx, id);
            }
            // Kept lines are priced again: a draft from before taxes were computed per category gets them now.
            totals = repriceStoredLines(tx, lines, adjustments);
          }
          const changes = draftChanges(row, patch, { customer, totals });
          assertDraftAfter(row, changes);
          // Its customer as read before the lock; another PATCH may have changed it since.
          const party = customer ?? kept?.get(current.customerId);
          if (!customer && row.customerId !== current.customerId) throw new StaleRead();
          const viewNow = (): Invoice => invoiceViewNow(row, lines, moment.view, { customer: party, account: moment.account });
          // Nothing to report: no write, no updated_at, no event, no timeline entry. `items` always
          // counts as a change, because every line sent is a new line (new IDs) however alike it looks.
          if (!drafts && !changesAnything(row, changes)) return { view: viewNow(), changed: false };
          // updated_at always moves, even within the millisecond of the last change: a finalize that read the draft before must see it changed.
          tx.assign(row, { ...changes, updatedAt: new Date(Math.max(moment.now.getTime(), row.updatedAt.getTime() + 1)) });
          const updated = viewNow();
          timeline.add(tx, timelineEntry(row, { type: 'updated' }, actor, moment.now));
          await addBillingEvent(tx, BILLING_SUBJECTS.invoiceUpdated, { object: updated }, actor, moment.now);
          return { view: updated, changed: true };
        });
        if (outcome.changed) announce();
        return { data: outcome.view };
      }),

    remove: async (actor: Actor, publicId: string): Promise<void> => {
      const id = invoiceIdOf(publicId);
      const moment = await workspaceMoment(deps, actor);
      await em.transactional(async (tx) => {
        const row = await invoices.findForUpdate(tx, actor.workspaceId, id);
        if (!row) throw notFound('invoice', publicId);
        assertEditable(row, 'deleted');
        const view = invoiceView(row, await invoices.linesOf(tx, id), moment.view);
        await invoices.remove(tx, row);
        await addBillingEvent(tx, BILLING_SUBJECTS.invoiceDeleted, { object: view }, actor, moment.now);
      });
      announce();
    },

    timeline: async (actor: Actor, publicId: string, query: z.output<typeof PageQuery>) => {
      const id = invoiceIdOf(publicId);
      if (!(await invoices.findInWorkspace(actor.workspaceId, id))) throw notFound('invoice', publicId);
      // Bound to this invoice too: another invoice's timeline is another list.
      const pages = cursors.forList(`invoices/${id}/timeline`, actor.workspaceId);
      const rows = await timeline.pageOldestFirst(id, pages.positionOf(query.cursor), query.limit);
      return pages.toPage(
        rows.map((row) => ({ row, created: row.occurredAt, id: row.id })),
        query.limit,
        ({ row }) => timelineView(row),
      );
    },
  };
};

export type InvoiceService = ReturnType<typeof invoiceService>;
