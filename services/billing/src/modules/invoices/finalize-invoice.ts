import { captureTraceContext, invalidState, notFound, type Orm, type SelfRecordedWrite } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Actor } from '../../shared/actor.ts';
import { periodOf } from '../numbering/numbering.domain.ts';
import { finalizeBatches } from './finalize-batch.ts';
import { assertFinalizable, invoiceView, isPricedByCurrentRule, totalsColumns, transition } from './invoice.domain.ts';
import { invoiceIdOf, repriceStoredLines, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps, type WorkspaceMoment } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

export interface FinalizeOptions {
  /** The billing app's database: every batch runs on a fresh fork of it, whichever request leads it. */
  orm: Orm;
  /** FINALIZE_BATCH_MAX: the most finalizes one transaction writes; 1 writes each alone. */
  batchMax: number;
  onBatch?: (size: number) => void;
}

const isNumberTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'invoices_number_unique';
};

/**
 * Finalize: load the draft with its lines and settings, guard, then hand it to its number series'
 * next batch (finalize-batch.ts), which freezes it with the customer as the catalog has it now,
 * numbers and chains it, and writes it with its timeline entry and its `billing.invoice.finalized`
 * event in one transaction with the others of the batch. Nothing is locked before the batch.
 *
 * A draft that was not as read any more by then (another finalize won, or a PATCH came in between)
 * is read again: the loser of a race gets the winner's invoice, a changed draft is finalized afresh.
 */
export const finalizeInvoice = (deps: InvoiceDeps, { orm, batchMax, onBatch }: FinalizeOptions) => {
  const invoices = invoiceRepository(deps.em);
  const batches = finalizeBatches({ orm, catalog: deps.catalog, announce: deps.announce, batchMax, onBatch });

  const attempt = async (actor: Actor, publicId: string, keyed: SelfRecordedWrite | undefined) => {
    const id = invoiceIdOf(publicId);
    const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, id);
    if (!loaded) throw notFound('invoice', publicId);
    const moment = await workspaceMoment(deps, actor, loaded.account);
    const { invoice: draft, lines } = loaded;

    const opened = transition(draft, { to: 'open' }, { now: moment.now, today: moment.local.date });
    // Open already: answered as it is, and nothing is written.
    if (!opened) return { data: invoiceView(draft, lines, moment.view) };
    assertFinalizable(lines);
    if (!isPricedByCurrentRule(draft, lines)) {
      await repriceUnderCurrentRule(deps.em, actor, draft, moment);
      throw new StaleRead();
    }

    const format = moment.account.numberFormat;
    const series = { workspaceId: actor.workspaceId, format, period: periodOf(format, moment.local) };
    const outcome = await batches.finalize({ actor, series, draft, opened, lines, moment, traceContext: captureTraceContext() ?? null, keyed });
    if (outcome === 'stale') return answerAfterLostRace(actor, publicId, moment);
    if ('failed' in outcome) throw outcome.failed;
    return { data: outcome.invoice };
  };

  /** Not the draft that was read: another finalize won (its invoice is the answer), or a PATCH came in between (read and finalize again). */
  const answerAfterLostRace = async (actor: Actor, publicId: string, moment: WorkspaceMoment) => {
    const current = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
    if (!current) throw notFound('invoice', publicId);
    if (transition(current.invoice, { to: 'open' }, { now: moment.now, today: moment.local.date })) throw new StaleRead();
    return { data: invoiceView(current.invoice, current.lines, moment.view) };
  };

  const finalize = (actor: Actor, publicId: string, keyed: SelfRecordedWrite | undefined) =>
    retryingStaleReads(() => attempt(actor, publicId, keyed)).catch((error: unknown) => {
      if (!isNumberTaken(error)) throw error;
      throw invalidState(
        'The number format would issue a number that an earlier format already issued in this workspace; nothing was finalized. Choose a number_format that cannot repeat an earlier one.',
      );
    });
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
    const totals = repriceStoredLines(tx, lines);
    tx.assign(row, { ...totalsColumns(totals), updatedAt: new Date(Math.max(moment.now.getTime(), draft.updatedAt.getTime() + 1)) });
  });
};

export type FinalizeInvoice = ReturnType<typeof finalizeInvoice>;
