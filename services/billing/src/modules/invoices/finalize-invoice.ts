import type { Customer } from '@invoicing/contracts';
import { captureTraceContext, invalidState, notFound, type Orm, type SelfRecordedWrite } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { periodOf } from '../numbering/numbering.domain.ts';
import { finalizeBatches, writeFinalizedBatch, type FinalizeOutcome, type FinalizeRequest, type FrozenDraft } from './finalize-batch.ts';
import { einvoiceRefusal, freezeDraft } from './finalization.domain.ts';
import { assertFinalizable, invoiceView, isPricedByCurrentRule, settledAtFinalization, totalsColumns, transition, type OpenedColumns } from './invoice.domain.ts';
import { invoiceIdOf, repriceStoredLines, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps, type WorkspaceMoment } from './invoice-deps.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { requireCustomer } from './invoice-items.ts';
import { adjustmentsOf } from './document-terms.domain.ts';
import { invoiceRepository } from './invoice.repository.ts';
import { newPublicUrlToken } from './public-link.ts';
import { sendOnFinalize } from '../messages/queue-message.ts';

export interface FinalizeOptions {
  /** The billing app's database: every batch writes on a fresh fork of it, whichever request leads it. */
  orm: Orm;
  /** FINALIZE_BATCH_MAX: the most finalizes one transaction writes; 1 writes each alone. */
  batchMax: number;
  onBatch?: (size: number) => void;
}

/** A draft that passed the guards: what its status change sets, and the request it answers. */
interface Finalizable {
  request: FinalizeRequest;
  draft: InvoiceRow;
  lines: readonly InvoiceLineRow[];
  opened: OpenedColumns & Partial<Pick<InvoiceRow, 'paidAt'>>;
}

const isNumberTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'invoices_number_unique';
};

/**
 * Finalize. Requests of one workspace go together (finalize-batch.ts); the use case runs once for
 * each batch of them and reads top to bottom:
 *
 * 1. load every draft of the batch with its lines and the workspace's settings: one statement;
 * 2. guard each request on its own (found, a draft, with lines, priced by the current rule): a
 *    refused one gets its error, an open one its invoice as it is, and the others go on;
 * 3. compute: the customers as the catalog has them now, each read once for the batch and before
 *    any lock (the catalog has no read of many customers by ID, and its API stays as it is), then
 *    each draft frozen with its customer (finalization.domain.ts);
 * 4. write: numbered, chained and written in one transaction with their timeline entries and
 *    their `billing.invoice.finalized` events (writeFinalizedBatch).
 *
 * A draft changed between the read and the lock (a PATCH came in between, or another replica
 * finalized it) is read again in the next batch: the loser of a race gets the winner's invoice, a
 * changed draft is finalized afresh.
 */
export const finalizeInvoice = (deps: InvoiceDeps, { orm, batchMax, onBatch }: FinalizeOptions) => {
  const invoices = invoiceRepository(deps.em);

  const finalizeMany = async (requests: readonly FinalizeRequest[]): Promise<FinalizeOutcome[]> => {
    const { actor } = requests[0]!;
    const loaded = await invoices.findManyWithLinesAndSettings(actor.workspaceId, [...new Set(requests.map((request) => request.invoiceId))]);
    // A batch is finalized at one time: its first invoice's (a test clock's, or real time). A
    // draft on another clock waits for a batch of its own (rare: a test space finalizing on two clocks at once).
    const testClockId = loaded.invoices.get(requests[0]!.invoiceId)?.invoice.testClockId ?? null;
    const moment = await workspaceMoment(deps, actor, loaded.account, testClockId);

    const answers = new Map<FinalizeRequest, FinalizeOutcome>();
    const finalizable: Finalizable[] = [];
    for (const request of requests) {
      if ((loaded.invoices.get(request.invoiceId)?.invoice.testClockId ?? null) !== testClockId) {
        answers.set(request, 'stale');
        continue;
      }
      const guarded = await guard(request, loaded.invoices.get(request.invoiceId), moment).catch((error: unknown): FinalizeOutcome => ({ failed: error }));
      if (typeof guarded === 'object' && 'draft' in guarded) finalizable.push(guarded);
      else answers.set(request, guarded);
    }

    const customers = await customersOf(finalizable);
    const drafts: FrozenDraft[] = [];
    for (const { request, draft, lines, opened } of finalizable) {
      const customer = customers.get(draft.customerId)!;
      if (customer.status === 'rejected') answers.set(request, { failed: customer.reason });
      else if (drafts.some((each) => each.frozen.invoice.id === draft.id)) continue; // A second finalize of one draft: answered with the first's.
      else {
        const frozen: InvoiceRow = { ...draft, ...freezeDraft(draft, { opened, customer: customer.value, account: moment.account, publicUrlToken: newPublicUrlToken() }) };
        const refusal = einvoiceRefusal(moment.account.einvoiceRequired, invoiceView(frozen, lines, moment.view));
        if (refusal) answers.set(request, { failed: refusal });
        else drafts.push({ request, readVersion: draft.updatedAt, frozen: { invoice: frozen, lines, view: moment.view }, occurredAt: moment.now });
      }
    }

    const format = moment.account.numberFormat;
    const series = { workspaceId: actor.workspaceId, format, period: periodOf(format, moment.local) };
    const onFinalized = moment.account.sendOnFinalize ? sendOnFinalize(moment.account.emailAttachments) : undefined;
    const finalized = drafts.length > 0 ? await writeFinalizedBatch({ orm, announce: deps.announce, onFinalized }, series, drafts) : new Map();
    const byDraft = new Map(drafts.map(({ request }) => [request.invoiceId, finalized.get(request)]));
    return requests.map((request) => {
      const answer = answers.get(request);
      if (answer) return answer;
      const invoice = byDraft.get(request.invoiceId);
      return invoice ? { invoice } : 'stale';
    });
  };

  /** A request's draft, if it is one to finalize now; else the request's answer (an error throws). */
  const guard = async (request: FinalizeRequest, found: { invoice: InvoiceRow; lines: InvoiceLineRow[] } | undefined, moment: WorkspaceMoment): Promise<Finalizable | FinalizeOutcome> => {
    if (!found) throw notFound('invoice', request.publicId);
    const { invoice: draft, lines } = found;
    const at = { now: moment.now, today: moment.local.date };
    const open = transition(draft, { to: 'open' }, at);
    // Open already: answered as it is, and nothing is written.
    if (!open) return { invoice: invoiceView(draft, lines, moment.view) };
    const opened = settledAtFinalization(draft, open, at) ?? open;
    assertFinalizable(lines);
    if (!isPricedByCurrentRule(draft, lines)) {
      await repriceUnderCurrentRule(deps.em, request.actor, draft, moment);
      return 'stale' as const;
    }
    return { request, draft, lines, opened };
  };

  /** Each customer of the drafts as the catalog has it now, or why it could not be read, by customer ID. */
  const customersOf = async (drafts: readonly Finalizable[]): Promise<Map<string, PromiseSettledResult<Customer>>> => {
    const askedBy = new Map<string, Actor>();
    for (const { draft, request } of drafts) if (!askedBy.has(draft.customerId)) askedBy.set(draft.customerId, request.actor);
    const read = await Promise.allSettled([...askedBy].map(([customerId, actor]) => requireCustomer(deps.catalog, actor, customerId)));
    return new Map([...askedBy.keys()].map((customerId, index) => [customerId, read[index]!]));
  };

  const batches = finalizeBatches({ batchMax, onBatch }, finalizeMany);

  const finalize = async (actor: Actor, publicId: string, keyed: SelfRecordedWrite | undefined) => {
    const invoiceId = invoiceIdOf(publicId);
    return retryingStaleReads(async () => {
      const outcome = await batches.submit({ actor, invoiceId, publicId, traceContext: captureTraceContext() ?? null, keyed });
      if (outcome === 'stale') throw new StaleRead();
      if ('failed' in outcome) throw outcome.failed;
      return { data: outcome.invoice };
    }).catch((error: unknown) => {
      if (!isNumberTaken(error)) throw error;
      throw invalidState(
        'The number format would issue a number that an earlier format already issued in this workspace; nothing was finalized. Choose a number_format that cannot repeat an earlier one.',
      );
    });
  };
  return Object.assign(finalize, { waiting: batches.waiting });
};

/**
 * A draft priced before tax was computed per VAT category and rate is priced again (its lines'
 * tax and its totals) before it is frozen, so every invoice finalized from now on follows the
 * rule. `updated_at` moves, so a finalize that read the old figures starts again.
 */
const repriceUnderCurrentRule = async (em: EntityManager, actor: Actor, draft: InvoiceRow, moment: WorkspaceMoment): Promise<void> => {
  const invoices = invoiceRepository(em);
  await em.transactional(async (tx) => {
    const row = await invoices.findForUpdate(tx, actor.workspaceId, draft.id);
    if (!row || row.status !== 'draft' || row.updatedAt.getTime() !== draft.updatedAt.getTime()) return;
    const lines = await invoices.linesOf(tx, draft.id);
    const totals = repriceStoredLines(tx, lines, adjustmentsOf(row));
    tx.assign(row, { ...totalsColumns(totals), updatedAt: new Date(Math.max(moment.now.getTime(), draft.updatedAt.getTime() + 1)) });
  });
};

export type FinalizeInvoice = ReturnType<typeof finalizeInvoice>;
