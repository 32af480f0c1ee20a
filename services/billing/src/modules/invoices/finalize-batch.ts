import { BILLING_SUBJECTS, type Customer, type Invoice } from '@invoicing/contracts';
import { AlreadyRecorded, type Orm, type RecordedOutcome, type SelfRecordedWrite, type TraceCarrier } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import type { CatalogReader } from '../../shared/catalog.ts';
import { billingEvent } from '../../shared/events.ts';
import { groupCommit } from '../../shared/group-commit.ts';
import type { Series } from '../numbering/numbering.domain.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import { freezeDraft, numberAndChain, type FrozenInvoice, type NumberedInvoice } from './finalization.domain.ts';
import type { WorkspaceMoment } from './invoice-deps.ts';
import type { OpenedColumns } from './invoice.domain.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { requireCustomer } from './invoice-items.ts';
import { invoiceRepository } from './invoice.repository.ts';
import { newPublicUrlToken } from './public-link.ts';

/** A finalize of a draft, read and guarded, waiting for its series' next transaction. */
export interface FinalizeRequest {
  actor: Actor;
  series: Series;
  /** The draft as read: it is finalized only while it still has this `updated_at`. */
  draft: InvoiceRow;
  /** What its status change to open sets. */
  opened: OpenedColumns;
  lines: readonly InvoiceLineRow[];
  moment: WorkspaceMoment;
  /** The request's trace context, for the outbox row the batch writes on its behalf. */
  traceContext: TraceCarrier | null;
  /** The keyed write whose outcome is recorded in the batch's transaction; none for an unkeyed request. */
  keyed: SelfRecordedWrite | undefined;
}

/**
 * A request's answer: its invoice as finalized; `stale` when the draft was not the one read any
 * more (finalized by another, or changed); or why its customer could not be read.
 */
export type FinalizeOutcome = { invoice: Invoice } | 'stale' | { failed: unknown };

export interface FinalizeBatchOptions {
  /** The billing app's database: every batch runs on a fresh fork of it, whichever request leads it. */
  orm: Orm;
  catalog: CatalogReader;
  /** Tells the outbox relay that a batch committed events. */
  announce: () => void;
  /** FINALIZE_BATCH_MAX: the most finalizes one transaction writes; 1 writes each alone. */
  batchMax: number;
  onBatch?: ((size: number) => void) | undefined;
}

/**
 * Finalize's group commit (shared/group-commit.ts): the requests of one number series that arrive
 * while a batch of that series is being written wait, and go together in the next one. A batch:
 *
 * 1. reads the customers of its drafts from the catalog, each customer once for the whole batch,
 *    before any lock (the catalog has no read of many customers by ID, and the API stays as it is);
 * 2. freezes each draft (finalization.domain.ts);
 * 3. in one transaction of four round trips (begin, two statements, commit): locks those drafts
 *    still as they were read and takes as many numbers as it locked, in one statement; numbers and
 *    chains them here, not in SQL (the hash rule lives in invoice-integrity.domain.ts only); then
 *    writes the invoices, their timeline entries and events, the series' chain head and the keyed
 *    requests' outcomes in one statement; and commits once.
 *
 * A request whose draft was not locked is answered `stale`. A batch whose transaction fails (a
 * number another format issued, a key already recorded, any database error) is rolled back whole,
 * numbers included, and its requests are retried one by one, so each gets its own answer.
 */
export const finalizeBatches = ({ orm, catalog, announce, batchMax, onBatch }: FinalizeBatchOptions) => {
  const invoices = invoiceRepository(orm.em);

  /** Each customer of the batch as the catalog has it now, or why it could not be read, by customer ID. */
  const customersOf = async (requests: readonly FinalizeRequest[]): Promise<Map<string, PromiseSettledResult<Customer>>> => {
    const askedBy = new Map<string, Actor>();
    for (const { draft, actor } of requests) if (!askedBy.has(draft.customerId)) askedBy.set(draft.customerId, actor);
    const read = await Promise.allSettled([...askedBy].map(([customerId, actor]) => requireCustomer(catalog, actor, customerId)));
    return new Map([...askedBy.keys()].map((customerId, index) => [customerId, read[index]!]));
  };

  /** The transaction of a batch: its frozen requests, in order, that it finalized, with what it wrote for each. */
  const write = (series: Series, frozen: ReadonlyMap<FinalizeRequest, FrozenInvoice>) =>
    orm.em.fork().transactional(async (tx) => {
      // Two finalizes of one draft in one batch: the first may take it, the other is answered as a loser.
      const candidates = [...frozen.keys()].filter((request, index, all) => all.findIndex((other) => other.draft.id === request.draft.id) === index);
      const taken = await invoices.lockDraftsAndTakeNumbers(tx, { series, drafts: candidates.map(({ draft }) => ({ id: draft.id, readVersion: draft.updatedAt })) });
      if (!taken) return [];
      const taking = candidates.filter((request) => taken.locked.has(request.draft.id));
      const { numbered, chainHead } = numberAndChain(
        taking.map((request) => frozen.get(request)!),
        series,
        taken.first,
        taken.previousChain,
      );
      const finalized = taking.map((request, index) => finalizedFor(request, numbered[index]!));
      const outcomes = finalized.flatMap(({ request, outcome }) => (request.keyed && outcome ? [{ claim: request.keyed.claim, outcome }] : []));
      const { recorded } = await invoices.writeFinalized(tx, {
        series,
        invoices: finalized.map(({ numbered: { row, columns } }) => ({ id: row.id, columns })),
        timeline: finalized.map(({ request, numbered: { row } }) => timelineEntry(row, { type: 'finalized', number: row.number! }, request.actor, request.opened.updatedAt)),
        events: finalized.map(({ request, numbered: { invoice } }) => ({
          envelope: billingEvent(BILLING_SUBJECTS.invoiceFinalized, { object: invoice }, request.actor, request.opened.updatedAt),
          traceContext: request.traceContext,
        })),
        chainHead,
        outcomes: outcomes.length > 0 ? { writes: taking.find((request) => request.keyed)!.keyed!.writes, entries: outcomes } : undefined,
      });
      // A key already holds an outcome (a repeat of that request got there first): alone, the request replays it.
      if (recorded < outcomes.length) throw new AlreadyRecorded();
      return finalized;
    });

  const commitBatch = async (requests: readonly FinalizeRequest[]): Promise<FinalizeOutcome[]> => {
    const { series } = requests[0]!;
    const customers = await customersOf(requests);
    const frozen = new Map<FinalizeRequest, FrozenInvoice>();
    for (const request of requests) {
      const customer = customers.get(request.draft.customerId)!;
      if (customer.status === 'rejected') continue;
      const { draft, opened, lines, moment } = request;
      const columns = freezeDraft(draft, { opened, customer: customer.value, account: moment.account, publicUrlToken: newPublicUrlToken() });
      frozen.set(request, { invoice: { ...draft, ...columns }, lines, view: moment.view });
    }
    const written = frozen.size > 0 ? await write(series, frozen) : [];
    if (written.length > 0) announce();
    for (const { request, outcome } of written) if (outcome) request.keyed!.committed(outcome);
    const byRequest = new Map(written.map(({ request, numbered }) => [request, numbered.invoice]));
    return requests.map((request) => {
      const customer = customers.get(request.draft.customerId)!;
      if (customer.status === 'rejected') return { failed: customer.reason };
      const invoice = byRequest.get(request);
      return invoice ? { invoice } : 'stale';
    });
  };

  const batches = groupCommit<FinalizeRequest, FinalizeOutcome>({ maxBatch: batchMax, commit: commitBatch, ...(onBatch ? { onBatch } : {}) });

  return {
    /** Finalizes `request` in its series' next batch. */
    finalize: (request: FinalizeRequest): Promise<FinalizeOutcome> => batches.submit(`${request.series.workspaceId}\n${request.series.format}\n${request.series.period}`, request),
    /** Requests waiting for the next batch, all series together. */
    waiting: batches.waiting,
  };
};

/** What a batch writes for one request it finalized: its invoice numbered and chained, and the keyed outcome of its response. */
const finalizedFor = (request: FinalizeRequest, numbered: NumberedInvoice): { request: FinalizeRequest; numbered: NumberedInvoice; outcome: RecordedOutcome | undefined } => ({
  request,
  numbered,
  outcome: request.keyed?.outcomeOf({ data: numbered.invoice }),
});
