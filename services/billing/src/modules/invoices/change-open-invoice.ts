import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { AlreadyRecorded, notFound, type SelfRecordedWrite } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { billingEvent } from '../../shared/events.ts';
import { timelineEntry, type TimelineFact } from '../timeline/timeline.domain.ts';
import { invoiceSummaryView, invoiceView, transition, type StatusChange } from './invoice.domain.ts';
import { invoiceIdOf, retryingStaleReads, StaleRead, workspaceMoment, type InvoiceDeps } from './invoice-deps.ts';
import type { InvoiceRow } from './invoice.entity.ts';
import { invoiceRepository } from './invoice.repository.ts';

/** A change of an open invoice's status, as pay and void each ask for it. */
export interface OpenInvoiceChange {
  change: Exclude<StatusChange, { to: 'open' }>;
  subject: typeof BILLING_SUBJECTS.invoicePaid | typeof BILLING_SUBJECTS.invoiceVoided;
  /** What its timeline entry records, "today" being the workspace's. */
  fact: (today: string) => TimelineFact;
}

/**
 * Pay and void: the rules differ (`transition` says what each sets and refuses), the flow is one.
 * Read the invoice, apply the change, and write it in one statement only while the invoice is still
 * open, with its timeline entry and event. Of two concurrent changes (two pays, or a pay and a void)
 * exactly one finds it open; the others write nothing, read the invoice again and get the 409 its
 * new status calls for. The event carries the whole invoice, lines included; the answer omits them.
 * A keyed request's answer is recorded by that statement too (`keyed`, see SelfRecordedWrite): a
 * change is one round trip after the read, with no transaction around it.
 */
export const changeOpenInvoice = (deps: InvoiceDeps) => {
  const invoices = invoiceRepository(deps.em);

  return (actor: Actor, publicId: string, { change, subject, fact }: OpenInvoiceChange, keyed: SelfRecordedWrite | undefined) =>
    retryingStaleReads(async () => {
      const loaded = await invoices.findWithLinesAndSettings(actor.workspaceId, invoiceIdOf(publicId));
      if (!loaded) throw notFound('invoice', publicId);
      const moment = await workspaceMoment(deps, actor, loaded.account, loaded.invoice.testClockId);
      const columns = transition(loaded.invoice, change, { now: moment.now, today: moment.local.date });
      const changed: InvoiceRow = { ...loaded.invoice, ...columns };
      const answer = { data: invoiceSummaryView(changed, moment.view) };
      const outcome = keyed && { writes: keyed.writes, claim: keyed.claim, outcome: keyed.outcomeOf(answer) };
      const written = await invoices.changeWhileStatus({
        invoice: changed,
        properties: Object.keys(columns) as (keyof InvoiceRow)[],
        whileStatus: 'open',
        // A payment recorded since the read: the transition, run again, answers the 409.
        whileUnpaid: true,
        entry: timelineEntry(changed, fact(moment.local.date), actor, moment.now),
        event: billingEvent(subject, { object: invoiceView(changed, loaded.lines, moment.view) }, actor, moment.now),
        outcome,
      });
      // Changed by someone else first: read it again, so the transition answers for its new status.
      if (written === 'not-in-status') throw new StaleRead();
      // The key already holds the outcome of this request, made before: that is the answer.
      if (written === 'key-held') throw new AlreadyRecorded();
      if (outcome) keyed!.committed(outcome.outcome);
      deps.announce();
      return answer;
    });
};
