import { BILLING_SUBJECTS, type Customer, type CustomerSnapshot, type Invoice } from '@invoicing/contracts';
import {
  AlreadyRecorded,
  captureTraceContext,
  invalidRequest,
  invalidState,
  notFound,
  selfRecordedWrite,
  type Orm,
  type RecordedOutcome,
  type SelfRecordedWrite,
  type TraceCarrier,
} from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { groupCommit } from '../../shared/group-commit.ts';
import { businessSnapshotOf, electronicAddressOf } from '../account/account.domain.ts';
import { chainHashOf, CURRENT_DOCUMENT_VERSION, snapshotHashOf } from '../numbering/invoice-integrity.domain.ts';
import { formatNumber, periodOf } from '../numbering/numbering.domain.ts';
import { numberingRepository, type Series } from '../numbering/numbering.repository.ts';
import { timelineEntry } from '../timeline/timeline.domain.ts';
import type { TimelineEntryRow } from '../timeline/timeline.entity.ts';
import { draftOf, invoiceView, isPricedByCurrentRule, totalsColumns, transition, type ViewContext } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceLineRow, InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository, type OutboxEntry } from './invoice.repository.ts';
import { computeInvoice } from './invoice-totals.domain.ts';
import { requireCustomer } from './invoice-items.ts';
import { newPublicUrlToken } from './public-link.ts';

/** What finalization freezes of the buyer, e-invoice data included; later edits to the customer do not reach it. */
const customerSnapshotOf = (customer: Customer): CustomerSnapshot => ({
  name: customer.name,
  email: customer.email,
  address: customer.address,
  tax_id: customer.tax_id,
  ...electronicAddressOf({ electronicAddress: customer.electronic_address, electronicAddressScheme: customer.electronic_address_scheme, email: customer.email }),
  buyer_reference: customer.buyer_reference,
});

const isNumberTaken = (error: unknown): boolean => {
  const { code, constraint } = error as { code?: string; constraint?: string };
  return code === '23505' && constraint === 'invoices_number_unique';
};

/** One finalize waiting for its series' next transaction: everything but its number and hashes is decided. */
interface Finalization {
  actor: Actor;
  series: Series;
  /** The invoice as finalized, but for number and hashes. */
  frozen: InvoiceRow;
  /** `updated_at` of the draft as read: it is finalized only while it still has it. */
  readVersion: Date;
  lines: readonly InvoiceLineRow[];
  view: ViewContext;
  /** The request's trace context, for the outbox row the batch writes on its behalf. */
  traceContext: TraceCarrier | null;
  /** The keyed write's record, written in the batch's transaction; none for an unkeyed request. */
  keyed: SelfRecordedWrite | undefined;
}

/** The invoice as finalized, or `stale`: it was not the draft read any more (finalized by another, or changed). */
type FinalizationResult = { invoice: Invoice } | 'stale';

export interface FinalizeOptions {
  /** The billing app's database: every batch runs on a fresh fork of it, whichever request leads it. */
  orm: Orm;
  /** FINALIZE_BATCH_MAX: the most finalizes one transaction writes; 1 writes each alone. */
  batchMax: number;
  onBatch?: (size: number) => void;
}

/**
 * Finalize, with group commit. A request reads the draft, its lines and the settings, and fetches
 * the customer from the catalog, before anything is locked; it is then one member of its series'
 * next batch (shared/group-commit.ts). A batch is one short transaction:
 *
 * 1. lock the member drafts still as they were read (status draft, same `updated_at`), by id;
 * 2. take as many numbers as drafts were locked with one upsert of the series' counter row, whose
 *    lock orders every batch of the series, on every replica;
 * 3. here, not in SQL: each number, each snapshot hash and the chain over them
 *    (invoice-integrity.domain.ts is the only place the hash rule lives);
 * 4. write the invoices, timeline entries, events and the series' chain head in one statement,
 *    and the keyed members' responses (their Idempotency-Key records), then commit once.
 *
 * A member not locked in step 1 learns it is stale: the loser of a race gets the invoice as the
 * winner finalized it, a draft changed meanwhile is finalized again from fresh reads. A batch
 * whose transaction fails (a number another format issued, a key already recorded) is rolled back
 * whole, numbers included, and its members are retried one by one, so each gets its own answer.
 */
export const finalizeInvoice = (deps: InvoiceDeps, { orm, batchMax, onBatch }: FinalizeOptions) => {
  const invoices = invoiceRepository(deps.em);
  const numbering = numberingRepository(deps.em);

  /** Numbers, hashes and what is written for the locked members, in order; the series' last chain value with them. */
  const numberAll = (members: readonly Finalization[], first: number, previousChain: string) => {
    let chain = previousChain;
    const finalized = members.map((member, index) => {
      const { series, frozen, actor } = member;
      const sequence = first + index;
      const numbered: InvoiceRow = { ...frozen, number: formatNumber(series.format, series.period, sequence), numberFormat: series.format, numberPeriod: series.period, numberSequence: sequence };
      const unhashed = invoiceView(numbered, member.lines, member.view);
      const snapshot = snapshotHashOf(unhashed, CURRENT_DOCUMENT_VERSION);
      chain = chainHashOf(chain, snapshot);
      const row: InvoiceRow = { ...numbered, snapshotSha256: snapshot, chainSha256: chain };
      const invoice: Invoice = { ...unhashed, snapshot_sha256: snapshot, chain_sha256: chain };
      const event: OutboxEntry = { envelope: billingEvent(BILLING_SUBJECTS.invoiceFinalized, { object: invoice }, actor, frozen.updatedAt), traceContext: member.traceContext };
      const entry: TimelineEntryRow = timelineEntry(row, { type: 'finalized', number: row.number! }, actor, frozen.updatedAt);
      const outcome: RecordedOutcome | undefined = member.keyed?.outcomeOf({ data: invoice });
      return { member, row, invoice, event, entry, outcome };
    });
    return { finalized, chainHead: chain };
  };

  const commitBatch = async (members: readonly Finalization[]): Promise<FinalizationResult[]> => {
    const { series } = members[0]!;
    // Two finalizes of one draft in one batch: the first may take it, the other is answered as a loser.
    const candidates = members.filter((member, index) => members.findIndex((other) => other.frozen.id === member.frozen.id) === index);
    const written = await orm.em.fork().transactional(async (tx) => {
      const locked = await invoices.lockDraftsAsRead(tx, series.workspaceId, candidates.map((member) => ({ id: member.frozen.id, readVersion: member.readVersion })));
      const taking = candidates.filter((member) => locked.has(member.frozen.id));
      if (taking.length === 0) return [];
      const { first, previousChain } = await numbering.takeNumbers(tx, series, taking.length);
      const { finalized, chainHead } = numberAll(taking, first, previousChain);
      await invoices.writeFinalized(tx, {
        invoices: finalized.map((each) => each.row),
        timeline: finalized.map((each) => each.entry),
        events: finalized.map((each) => each.event),
        series,
        chainHead,
      });
      const records = finalized.flatMap(({ member, outcome }) => (member.keyed && outcome ? [{ member, claim: member.keyed.claim, outcome }] : []));
      if (records.length > 0 && (await records[0]!.member.keyed!.writes.recordMany(tx, records)) < records.length) {
        // A key already holds an outcome (a repeat of that request got there first): alone, the member replays it.
        throw new AlreadyRecorded();
      }
      return finalized;
    });
    if (written.length > 0) deps.announce();
    for (const { member, outcome } of written) if (outcome) member.keyed!.committed(outcome);
    const byMember = new Map(written.map((each) => [each.member, each.invoice]));
    return members.map((member) => {
      const invoice = byMember.get(member);
      return invoice ? { invoice } : 'stale';
    });
  };

  const batches = groupCommit<Finalization, FinalizationResult>({ maxBatch: batchMax, commit: commitBatch, ...(onBatch ? { onBatch } : {}) });

  /**
   * A draft priced before tax was computed per VAT category and rate is priced again (its lines'
   * tax and its totals) before it is frozen, so every invoice finalized from now on follows the
   * rule. `updated_at` moves, so a finalize that read the old figures starts again.
   */
  const repriceUnderCurrentRule = async (actor: Actor, invoice: InvoiceRow, now: Date): Promise<void> => {
    await deps.em.transactional(async (tx) => {
      const row = await invoices.findForUpdate(tx, actor.workspaceId, invoice.id);
      if (!row || row.status !== 'draft' || row.updatedAt.getTime() !== invoice.updatedAt.getTime()) return;
      const lines: InvoiceLineRow[] = await invoices.linesOf(tx, invoice.id);
      const { lines: amounts, totals } = computeInvoice(lines.map(draftOf));
      lines.forEach((line, index) => {
        line.tax = amounts[index]!.tax;
      });
      tx.assign(row, { ...totalsColumns(totals), updatedAt: new Date(Math.max(now.getTime(), invoice.updatedAt.getTime() + 1)) });
    });
  };

  const attempt = async (actor: Actor, publicId: string) => {
    const id = invoiceIdOf(publicId);
    const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, id);
    if (!loaded) throw notFound('invoice', publicId);
    const moment = await workspaceMoment(deps, actor, loaded.account);
    const { invoice, lines } = loaded;
    const opened = transition(invoice, { to: 'open' }, { now: moment.now, today: moment.local.date });
    if (!opened) return { data: invoiceView(invoice, lines, moment.view) };
    if (lines.length === 0) {
      throw invalidRequest('An invoice needs at least one line to be finalized.', [{ path: 'items', message: 'no lines: PATCH items first' }]);
    }
    if (!isPricedByCurrentRule(invoice, lines)) {
      await repriceUnderCurrentRule(actor, invoice, moment.now);
      throw new StaleRead();
    }
    // The snapshot needs the customer as it is now: its email, address, tax ID, electronic address
    // and buyer reference, which billing does not hold (the draft keeps only the name, for search,
    // and billing consumes no customer events to keep a copy current). A copy of our own could be
    // stale at the very moment the invoice is frozen for ever, so the catalog is asked, before any
    // lock is taken. A deleted customer still answers by ID here (F7 in the README).
    const customer = await requireCustomer(deps.catalog, actor, invoice.customerId);

    const format = moment.account.numberFormat;
    const frozen: InvoiceRow = {
      ...invoice,
      ...opened,
      customerName: customer.name,
      customerSnapshot: customerSnapshotOf(customer),
      businessSnapshot: businessSnapshotOf(moment.account),
      // Empty on the draft: the customer's default reference, and delivery on the day of issue (decisions.md).
      buyerReference: invoice.buyerReference ?? customer.buyer_reference ?? null,
      deliveryDate: invoice.deliveryDate ?? invoice.issueDate,
      snapshotVersion: CURRENT_DOCUMENT_VERSION,
      publicUrlToken: newPublicUrlToken(),
    };
    const series: Series = { workspaceId: actor.workspaceId, format, period: periodOf(format, moment.local) };
    const result = await batches.submit(`${series.workspaceId}\n${series.format}\n${series.period}`, {
      actor,
      series,
      frozen,
      readVersion: invoice.updatedAt,
      lines,
      view: moment.view,
      traceContext: captureTraceContext() ?? null,
      keyed: selfRecordedWrite(),
    });
    if (result !== 'stale') return { data: result.invoice };
    // Not the draft that was read: another finalize won, or a PATCH came in between.
    const current = await invoices.findWithLinesAndSettings(actor.workspaceId, id);
    if (!current) throw notFound('invoice', publicId);
    if (transition(current.invoice, { to: 'open' }, { now: moment.now, today: moment.local.date })) throw new StaleRead();
    return { data: invoiceView(current.invoice, current.lines, moment.view) };
  };

  const finalize = (actor: Actor, publicId: string) =>
    retryingStaleReads(() => attempt(actor, publicId)).catch((error: unknown) => {
      if (!isNumberTaken(error)) throw error;
      throw invalidState(
        'The number format would issue a number that an earlier format already issued in this workspace; nothing was finalized. Choose a number_format that cannot repeat an earlier one.',
      );
    });
  return Object.assign(finalize, { waiting: batches.waiting });
};

export type FinalizeInvoice = ReturnType<typeof finalizeInvoice>;
