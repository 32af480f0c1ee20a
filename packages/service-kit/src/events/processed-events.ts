import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * Runs `effect` in one transaction with a record that `consumer` processed `eventId`, unless
 * that record exists already: a redelivered event then changes nothing. The table
 * `<schema>.processed_events (consumer text, event_id uuid, processed_at timestamptz,
 * primary key (consumer, event_id))` belongs to the consuming service's migrations.
 */
export const processOnce = async (
  em: EntityManager,
  schema: string,
  consumer: string,
  eventId: string,
  effect: (em: EntityManager) => Promise<void>,
): Promise<boolean> =>
  em.fork().transactional(async (tx) => {
    const inserted = await tx.execute<{ event_id: string }[]>(
      `insert into "${schema}".processed_events (consumer, event_id, processed_at) values (?, ?, now()) on conflict do nothing returning event_id`,
      [consumer, eventId],
    );
    if (inserted.length === 0) return false;
    await effect(tx);
    return true;
  });
