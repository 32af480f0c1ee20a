import type { TimelineEntryType } from '@invoicing/contracts';
import { defineEntity, p, type InferEntity } from '@mikro-orm/postgresql';

export const TIMELINE_TYPES = ['created', 'updated', 'finalized', 'paid', 'voided', 'overdue'] as const satisfies readonly TimelineEntryType[];

export const TimelineEntryEntity = defineEntity({
  name: 'TimelineEntry',
  tableName: 'invoice_timeline',
  properties: {
    id: p.uuid().primary(),
    invoiceId: p.uuid(),
    workspaceId: p.uuid(),
    type: p.enum(TIMELINE_TYPES),
    occurredAt: p.datetime(3),
    keyId: p.text().nullable(),
    requestId: p.text().nullable(),
    details: p.json<Record<string, string | null>>(),
  },
});
export type TimelineEntryRow = InferEntity<typeof TimelineEntryEntity>;
