import { outboxColumns, type OutboxEntry } from '@invoicing/service-kit';
import { entityColumns, sqlOf } from '@invoicing/service-kit/typed-sql';
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { InvoiceEntity, type InvoiceRow } from '../invoices/invoice.entity.ts';
import { TimelineEntryEntity, type TimelineEntryRow } from '../timeline/timeline.entity.ts';
import type { PaidColumns } from './payment.domain.ts';
import { PaymentEntity, type PaymentRow } from './payment.entity.ts';

/** What recording payments writes: each invoice's new columns, the payments, their timeline entries and events. */
export interface RecordedPayments {
  workspaceId: string;
  invoices: readonly { id: string; columns: PaidColumns }[];
  payments: readonly PaymentRow[];
  timeline: readonly TimelineEntryRow[];
  events: readonly OutboxEntry[];
}

export const paymentRepository = (em: EntityManager) => ({
  /**
   * Inside `tx`, the invoices of a workspace by ID, each locked until `tx` ends (`for update`), in
   * the order of their IDs: every payment of every replica waits for the one before it on the same
   * invoice and sees what it recorded, and two transactions that lock several never wait on each
   * other in a cycle.
   */
  lockInvoices: (tx: EntityManager, workspaceId: string, ids: readonly string[]): Promise<InvoiceRow[]> =>
    ids.length === 0
      ? Promise.resolve([])
      : tx.find(InvoiceEntity, { id: { $in: [...ids] }, workspaceId }, { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' }, disableIdentityMap: true }),

  /**
   * Payments, in one statement inside `tx` (which holds their invoices' locks): the invoices'
   * new amounts (and status, once paid) from one jsonb parameter, the payments, their timeline
   * entries and their events.
   */
  record: async (tx: EntityManager, { workspaceId, invoices, payments, timeline, events }: RecordedPayments): Promise<void> => {
    if (payments.length === 0) return;
    const changes = JSON.stringify(invoices.map(({ id, columns }) => ({ ...entityColumns(tx, InvoiceEntity, columns), id })));
    let statement = sqlOf<BillingDatabase>(tx)
      .with('changed', (db) =>
        db
          .updateTable('invoices')
          .from(
            sql`jsonb_to_recordset(${changes}::jsonb)`.as<'v'>(
              sql`${sql.ref('v')}(id uuid, status text, amount_due bigint, amount_paid bigint, paid_at timestamptz, payment_reference text, updated_at timestamptz)`,
            ),
          )
          .set({
            status: sql.ref('v.status'),
            amount_due: sql.ref('v.amount_due'),
            amount_paid: sql.ref('v.amount_paid'),
            paid_at: sql.ref('v.paid_at'),
            payment_reference: sql.ref('v.payment_reference'),
            updated_at: sql.ref('v.updated_at'),
          } as never)
          .whereRef('invoices.id', '=', sql.ref('v.id') as never)
          .where('invoices.workspace_id', '=', workspaceId),
      )
      .with('new_events', (db) => db.insertInto('outbox').values(events.map((entry) => outboxColumns(tx, entry))));
    if (timeline.length > 0) {
      statement = statement.with('new_entries', (db) => db.insertInto('invoice_timeline').values(timeline.map((entry) => entityColumns(tx, TimelineEntryEntity, entry)))) as unknown as typeof statement;
    }
    await statement.insertInto('payments').values(payments.map((payment) => entityColumns(tx, PaymentEntity, payment))).execute();
  },

  /** An invoice's payments, oldest first. */
  ofInvoice: (invoiceId: string): Promise<PaymentRow[]> => em.find(PaymentEntity, { invoiceId }, { orderBy: { createdAt: 'asc', id: 'asc' } }),
});

export type PaymentRepository = ReturnType<typeof paymentRepository>;
