import type { TimelineEntry } from '@invoicing/contracts';
import { newId } from '@invoicing/service-kit/ids';
import type { Actor } from '../../shared/actor.ts';
import type { TimelineEntryRow } from './timeline.entity.ts';
import { livemodeOf } from '@invoicing/service-kit/data-space';

/** What each kind of entry records beside its time and actor. */
export type TimelineFact =
  | { type: 'created' }
  | { type: 'updated' }
  | { type: 'finalized'; number: string }
  | { type: 'paid'; paid_on: string | null; payment_reference: string | null }
  | { type: 'voided'; reason: string | null }
  | { type: 'overdue'; due_date: string };

export const timelineEntry = (invoice: { id: string; workspaceId: string }, fact: TimelineFact, actor: Actor, occurredAt: Date): TimelineEntryRow => {
  const { type, ...details } = fact;
  return {
    id: newId(),
    invoiceId: invoice.id,
    workspaceId: invoice.workspaceId,
    type,
    occurredAt,
    keyId: actor.keyId,
    requestId: actor.requestId,
    details,
  };
};

export const timelineView = (row: TimelineEntryRow): TimelineEntry =>
  ({
    ...row.details,
    type: row.type,
    object: 'timeline_entry',
    livemode: livemodeOf(row.workspaceId),
    occurred_at: row.occurredAt.toISOString(),
    key_id: row.keyId ?? null,
    request_id: row.requestId ?? null,
  }) as TimelineEntry;
