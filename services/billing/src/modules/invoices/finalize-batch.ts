import { BILLING_SUBJECTS, type Invoice } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import { AlreadyRecorded, type Orm, type OutboxEntry, type RecordedOutcome, type SelfRecordedWrite, type TraceCarrier } from '@invoicing/service-kit';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { groupCommit } from '../../shared/group-commit.ts';
import type { Series } from '../numbering/numbering.domain.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { numberAndChain, type FrozenInvoice, type NumberedInvoice } from './finalization.domain.ts';
import { invoiceRepository } from './invoice.repository.ts';
import { paidReport } from '../payments/payments.service.ts';

/** A request to finalize a draft, waiting for its workspace's next batch. */
export interface FinalizeRequest {
  actor: Actor;
  /** The draft's UUID, and its ID as the request named it (a 404 names that). */
  invoiceId: string;
  publicId: string;
  /** The request's trace context, for the outbox row the batch writes on its behalf. */
  traceContext: TraceCarrier | null;
  /** The keyed write whose outcome is recorded in the batch's transaction; none for an unkeyed request. */
  keyed: SelfRecordedWrite | undefined;
}

/**
 * A request's answer: the invoice (finalized now, or open already); `stale` when its draft changed
 * between the batch's read and its lock (read it again, in the next batch); or the error it gets.
 */
export type FinalizeOutcome = { invoice: Invoice } | 'stale' | { failed: unknown };

/** A draft frozen for a request, to be numbered only while it still has the `updated_at` it was read with. */
export interface FrozenDraft {
  request: FinalizeRequest;
  readVersion: Date;
  frozen: FrozenInvoice;
  /** When the batch finalizes it: the time of its timeline entry and event. */
  occurredAt: Date;
}

export interface FinalizeBatchOptions {
  /** FINALIZE_BATCH_MAX: the most finalizes one batch takes; 1: each alone. */
  batchMax: number;
  onBatch?: ((size: number) => void) | undefined;
}

/**
 * Finalize's group commit (shared/group-commit.ts): requests of one workspace (so of one number
 * series: its format is the workspace's, its period today's) that arrive while a batch of that
 * workspace is running wait, and go together in the next one, which `finalizeMany` (the use case,
 * finalize-invoice.ts) runs once for all of them. A batch that throws is run again request by
 * request, so a failure is charged to the request that causes it.
 */
export const finalizeBatches = ({ batchMax, onBatch }: FinalizeBatchOptions, finalizeMany: (requests: readonly FinalizeRequest[]) => Promise<FinalizeOutcome[]>) => {
  const batches = groupCommit<FinalizeRequest, FinalizeOutcome>({ maxBatch: batchMax, commit: finalizeMany, ...(onBatch ? { onBatch } : {}) });
  return {
    submit: (request: FinalizeRequest): Promise<FinalizeOutcome> => batches.submit(request.actor.workspaceId, request),
    /** Requests waiting for the next batch, all workspaces together. */
    waiting: batches.waiting,
  };
};

/**
 * The batch's transaction, four round trips whatever its size (begin, two statements, commit):
 *
 * 1. lock those drafts still as they were read (status draft, the same `updated_at`) and take as
 *    many numbers from the series' counter row as were locked, in one statement; the counter row
 *    stays locked until commit, which orders every batch of the series on every replica;
 * 2. number and chain them here, not in SQL (finalization.domain.ts; the hash rule lives in
 *    invoice-integrity.domain.ts only);
 * 3. write the invoices, their timeline entries and `billing.invoice.finalized` events, the
 *    series' chain head and the keyed requests' outcomes in one statement, and commit.
 *
 * Answers the invoices finalized, by request; a draft not locked was changed or finalized
 * meanwhile. A key that already holds an outcome fails the whole transaction (AlreadyRecorded):
 * alone, that request replays the outcome.
 */
/** What else a finalize causes, written in its batch's transaction (the e-mail of `send_on_finalize`). */
export type OnFinalized = (tx: EntityManager, finalized: readonly { invoice: Invoice; actor: Actor; occurredAt: Date }[]) => Promise<void>;

export const writeFinalizedBatch = async (
  { orm, announce, onFinalized }: { orm: Orm; announce: () => void; onFinalized?: OnFinalized | undefined },
  series: Series,
  drafts: readonly FrozenDraft[],
): Promise<Map<FinalizeRequest, Invoice>> => {
  const invoices = invoiceRepository(orm.em);
  const written = await orm.em.fork().transactional(async (tx) => {
    const taken = await invoices.lockDraftsAndTakeNumbers(tx, { series, drafts: drafts.map(({ frozen, readVersion }) => ({ id: frozen.invoice.id, readVersion })) });
    if (!taken) return [];
    const taking = drafts.filter(({ frozen }) => taken.locked.has(frozen.invoice.id));
    const { numbered, chainHead } = numberAndChain(
      taking.map(({ frozen }) => frozen),
      series,
      taken.first,
      taken.previousChain,
    );
    const finalized = taking.map((draft, index) => finalizedFor(draft, numbered[index]!));
    const reports = finalized.map(reportOf);
    const outcomes = finalized.flatMap(({ draft: { request }, outcome }) => (request.keyed && outcome ? [{ claim: request.keyed.claim, outcome }] : []));
    const { recorded } = await invoices.writeFinalized(tx, {
      series,
      invoices: finalized.map(({ numbered: { row, columns } }) => ({ id: row.id, columns })),
      timeline: reports.flatMap(({ entries }) => entries),
      events: reports.flatMap(({ events }) => events),
      chainHead,
      outcomes: outcomes.length > 0 ? { writes: taking.find(({ request }) => request.keyed)!.request.keyed!.writes, entries: outcomes } : undefined,
    });
    if (recorded < outcomes.length) throw new AlreadyRecorded();
    await onFinalized?.(tx, finalized.map(({ draft, numbered }) => ({ invoice: numbered.invoice, actor: draft.request.actor, occurredAt: draft.occurredAt })));
    return finalized;
  });
  if (written.length > 0) announce();
  for (const { draft, outcome } of written) if (outcome) draft.request.keyed!.committed(outcome);
  return new Map(written.map(({ draft, numbered }) => [draft.request, numbered.invoice]));
};

/** What the batch writes for a draft it finalized: the invoice numbered and chained, and the keyed outcome of its response. */
const finalizedFor = (draft: FrozenDraft, numbered: NumberedInvoice): { draft: FrozenDraft; numbered: NumberedInvoice; outcome: RecordedOutcome | undefined } => ({
  draft,
  numbered,
  outcome: draft.request.keyed?.outcomeOf({ data: numbered.invoice }),
});

/**
 * The timeline entries and events of a draft finalized: `finalized`, and for a draft its prepaid
 * amount settled (paid at finalization) the report of its payment after it (paid on no known day:
 * before the invoice was issued).
 */
const reportOf = ({ draft, numbered: { row, invoice } }: { draft: FrozenDraft; numbered: NumberedInvoice }): { entries: TimelineEntryRow[]; events: OutboxEntry[] } => {
  const { actor, traceContext } = draft.request;
  const entries = [timelineEntry(row, { type: 'finalized', number: row.number! }, actor, draft.occurredAt)];
  const events: OutboxEntry[] = [{ envelope: billingEvent(BILLING_SUBJECTS.invoiceFinalized, { object: invoice }, actor, draft.occurredAt), traceContext }];
  if (row.status === 'paid') {
    const paid = paidReport(row, { object: invoice }, actor, draft.occurredAt, { paidOn: null, paymentReference: null, traceContext });
    entries.push(paid.entry);
    events.push(paid.event);
  }
  return { entries, events };
};
