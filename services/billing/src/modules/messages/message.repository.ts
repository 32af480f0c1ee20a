import type { EventEnvelope, MessageAttachment } from '@invoicing/contracts';
import { entityColumns, entityRows, insertOnlyWith, nowPlus, outboxColumns, sqlOf, type KeysetPosition } from '@invoicing/service-kit';
import { raw, type EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { BillingDatabase } from '../../database.ts';
import { EmailSuppressionEntity, MessageEntity, type MessageRow } from './message.entity.ts';

/** A message the mail worker holds under `lease`. */
export type ClaimedMessage = MessageRow & { lease: string };

const sqlIn = (em: EntityManager) => sqlOf<BillingDatabase>(em);

/** A queued message is due at once by the database's clock, the clock its claims compare with. */
const messageColumns = (tx: EntityManager, row: MessageRow) => ({
  ...entityColumns(tx, MessageEntity, row),
  next_attempt_at: row.status === 'queued' ? sql<Date>`now()` : sql.lit(null),
});

export const messageRepository = (em: EntityManager) => ({
  /** Queues (or records as failed at once) one message, in the caller's transaction. */
  add: async (tx: EntityManager, row: MessageRow): Promise<void> => {
    await sqlIn(tx).insertInto('messages').values(messageColumns(tx, row)).execute();
  },

  /**
   * A reminder for one invoice and local day, unless that day has one already (the unique index):
   * true when it was queued.
   */
  addReminder: async (tx: EntityManager, row: MessageRow): Promise<boolean> => {
    const inserted = await sqlIn(tx)
      .insertInto('messages')
      .values(messageColumns(tx, row))
      .onConflict((oc) => oc.columns(['invoice_id', 'reminder_on']).where('kind', '=', sql.lit('reminder')).doNothing())
      .returning('id')
      .executeTakeFirst();
    return inserted !== undefined;
  },

  findInWorkspace: (workspaceId: string, id: string): Promise<MessageRow | null> => em.findOne(MessageEntity, { id, workspaceId }),

  /** An invoice's messages, newest first, after `position`. */
  pageOfInvoice: (invoiceId: string, position: KeysetPosition | undefined, limit: number): Promise<MessageRow[]> =>
    em.find(
      MessageEntity,
      // A tuple of properties: the ORM writes their columns as a row comparison.
      position ? ({ invoiceId, [raw(['createdAt', 'id'])]: { $lt: [position.created, position.id] } } as never) : { invoiceId },
      { orderBy: { createdAt: 'desc', id: 'desc' }, limit: limit + 1 },
    ),

  /**
   * Takes up to `limit` due messages under a fresh lease that also pushes their due time `leaseMs`
   * ahead: replicas claim side by side (SKIP LOCKED) without taking one twice, and a claim whose
   * holder died comes due again when its lease runs out.
   */
  claimDue: async (limit: number, leaseMs: number): Promise<ClaimedMessage[]> => {
    const rows = await sqlIn(em)
      .with('due', (db) =>
        db
          .selectFrom('messages')
          .select('id')
          .where('status', '=', sql.lit('queued'))
          .where('next_attempt_at', '<=', sql<Date>`now()`)
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('messages as m')
      .set({ lease: sql<string>`gen_random_uuid()`, next_attempt_at: nowPlus(leaseMs, 'millisecond') })
      .from('due')
      .whereRef('m.id', '=', 'due.id')
      .returningAll('m')
      .execute();
    return entityRows(em, MessageEntity, rows) as ClaimedMessage[];
  },

  /**
   * The message went out: `sent`, with what it carried, and its event, in one statement (no
   * transaction around it), so the moment between the server's acceptance and this record, where a
   * process that dies would send the message again, is one round trip. Only the lease holder moves
   * it; false when another took it over (then no event either).
   */
  markSent: async (claimed: ClaimedMessage, attachments: MessageAttachment[], event: EventEnvelope): Promise<boolean> => {
    const { moved } = await sqlIn(em)
      .with('moved', (db) =>
        db
          .updateTable('messages')
          .set((eb) => ({
            status: sql.lit('sent'),
            attempts: eb('attempts', '+', sql.lit(1)),
            attachments: entityColumns(em, MessageEntity, { attachments }).attachments!,
            error: sql.lit(null),
            lease: sql.lit(null),
            next_attempt_at: sql.lit(null),
            sent_at: sql<Date>`now()`,
          }))
          .where('id', '=', claimed.id)
          .where('lease', '=', claimed.lease)
          .where('status', '=', sql.lit('queued'))
          .returning('id'),
      )
      .with('new_events', (db) => insertOnlyWith(db, 'outbox', 'moved', outboxColumns(em, { envelope: event, traceContext: null })))
      .selectNoFrom((eb) => [eb.cast<number>(eb.selectFrom('moved').select((moved) => moved.fn.countAll().as('moved')), 'integer').as('moved')])
      .executeTakeFirstOrThrow();
    return moved > 0;
  },

  /** A temporary refusal: tried again in `retryInS` seconds, the reason kept. */
  markRetry: async (claimed: ClaimedMessage, error: string, retryInS: number): Promise<void> => {
    await sqlIn(em)
      .updateTable('messages')
      .set((eb) => ({ attempts: eb('attempts', '+', sql.lit(1)), error, lease: sql.lit(null), next_attempt_at: nowPlus(retryInS, 'second') }))
      .where('id', '=', claimed.id)
      .where('lease', '=', claimed.lease)
      .where('status', '=', sql.lit('queued'))
      .execute();
  },

  /** Given up: `failed` with its reason; `attempted` counts the attempt that just ended it. False when another took it over. */
  markFailed: async (tx: EntityManager, claimed: ClaimedMessage, error: string, attempted: boolean): Promise<boolean> => {
    const moved = await sqlIn(tx)
      .updateTable('messages')
      .set((eb) => ({
        status: sql.lit('failed'),
        attempts: attempted ? eb('attempts', '+', sql.lit(1)) : eb.ref('attempts'),
        error,
        lease: sql.lit(null),
        next_attempt_at: sql.lit(null),
      }))
      .where('id', '=', claimed.id)
      .where('lease', '=', claimed.lease)
      .where('status', '=', sql.lit('queued'))
      .returning('id')
      .executeTakeFirst();
    return moved !== undefined;
  },

  /** Which of `addresses` (normalized) are suppressed in the workspace. */
  suppressedAmong: async (workspaceId: string, addresses: readonly string[]): Promise<string[]> => {
    if (addresses.length === 0) return [];
    const rows = await sqlIn(em)
      .selectFrom('email_suppressions')
      .select('address')
      .where('workspace_id', '=', workspaceId)
      .where((eb) => eb('address', '=', eb.fn.any(eb.val([...addresses]))))
      .execute();
    return rows.map((row) => row.address);
  },

  /** Records addresses refused for good; those suppressed already keep their first record. Returns the ones new. */
  suppress: async (tx: EntityManager, workspaceId: string, addresses: readonly string[], messageId: string, reason: string): Promise<string[]> => {
    if (addresses.length === 0) return [];
    const rows = await sqlIn(tx)
      .insertInto('email_suppressions')
      .values(
        addresses.map((address) =>
          entityColumns(tx, EmailSuppressionEntity, { workspaceId, address, messageId, reason, seenBounced: false, createdAt: new Date() }),
        ),
      )
      .onConflict((oc) => oc.columns(['workspace_id', 'address']).doNothing())
      .returning('address')
      .execute();
    return rows.map((row) => row.address);
  },

  /** Catalog shows a customer with this address as bounced: from now on, seeing it `ok` means its email changed. */
  markSeenBounced: async (workspaceId: string, address: string): Promise<void> => {
    await sqlIn(em)
      .updateTable('email_suppressions')
      .set({ seen_bounced: sql.lit(true) })
      .where('workspace_id', '=', workspaceId)
      .where('address', '=', address)
      .where('seen_bounced', '=', sql.lit(false))
      .execute();
  },

  /** The customer's email changed since it bounced (catalog shows it `ok` again): the address is tried again. */
  liftSeenBounced: async (workspaceId: string, address: string): Promise<boolean> => {
    const lifted = await sqlIn(em)
      .deleteFrom('email_suppressions')
      .where('workspace_id', '=', workspaceId)
      .where('address', '=', address)
      .where('seen_bounced', '=', sql.lit(true))
      .returning('address')
      .executeTakeFirst();
    return lifted !== undefined;
  },
});

export type MessageRepository = ReturnType<typeof messageRepository>;
