import { nowPlus, sqlOf } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { NotificationsDatabase } from '../../database.ts';
import type { DELIVERY_STATES } from './delivery.entity.ts';

export type DeliveryTrigger = 'event' | 'replay' | 'redeliver';
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** A delivery the worker holds under `lease`, with what it needs to send it. */
export interface ClaimedDelivery {
  id: string;
  lease: string;
  trigger: DeliveryTrigger;
  /** Attempts made before this one. */
  attempts: number;
  endpointId: string;
  endpointEnabled: boolean;
  /** Whether the endpoint was in a run of failures when claimed: only then does a success have to end it. */
  endpointFailing: boolean;
  url: string;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  eventId: string;
  /** The event's workspace and the id of the API request it came from, for the delivery's log line. */
  workspaceId: string;
  correlationId: string | null;
  eventType: string;
  eventCreated: Date;
  eventData: unknown;
}

export interface AttemptRecord {
  attemptedAt: Date;
  url: string;
  succeeded: boolean;
  statusCode: number | null;
  latencyMs: number;
  responseBody: string | null;
  error: string | null;
}

const sqlIn = (em: EntityManager) => sqlOf<NotificationsDatabase>(em);


export const deliveryRepository = (em: EntityManager) => ({
  /** Deliveries still to be sent: queued, claimed or waiting for a retry. */
  countPending: async (): Promise<number> => {
    const row = await sqlIn(em).selectFrom('Delivery').select((eb) => eb.fn.countAll<string>().as('pending')).where('state', '=', 'pending').executeTakeFirst();
    return Number(row?.pending ?? 0);
  },

  /**
   * Takes up to `limit` due deliveries under a fresh lease that also pushes their due time
   * `leaseMs` ahead: SKIP LOCKED lets replicas claim side by side without taking one row twice,
   * and a claim whose holder dies becomes due again once its lease runs out, so nothing is lost.
   */
  claimDue: async (limit: number, leaseMs: number, perEndpoint: number): Promise<ClaimedDelivery[]> => {
    // An endpoint takes at most `perEndpoint` of the requests in flight (its leases not yet run
    // out, whichever replica holds them): one that hangs or resets holds those few slots for the
    // request deadline, and every other endpoint's deliveries still go out at once.
    // `ranked` and `inFlight` are subqueries rather than CTEs: PostgreSQL inlines a CTE read once
    // anyway, and the ORM's naming plugin maps a subquery's columns to the entity's.
    const rows = await sqlIn(em)
      .with('due', (db) =>
        db
          .selectFrom('Delivery')
          .select('id')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom((eb) =>
                eb
                  .selectFrom('Delivery')
                  .select(['id', 'endpointId', (eb) => eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('endpointId').orderBy('nextAttemptAt').orderBy('id')).as('place')])
                  .where('state', '=', 'pending')
                  .where('nextAttemptAt', '<=', sql<Date>`now()`)
                  .as('ranked'),
              )
              .leftJoin(
                (eb) =>
                  eb
                    .selectFrom('Delivery')
                    .select(['endpointId', (eb) => eb.fn.countAll<number>().as('sending')])
                    .where('state', '=', 'pending')
                    .where('lease', 'is not', null)
                    .where('nextAttemptAt', '>', sql<Date>`now()`)
                    .groupBy('endpointId')
                    .as('inFlight'),
                (join) => join.onRef('inFlight.endpointId', '=', 'ranked.endpointId'),
              )
              .select('ranked.id')
              .where((eb) => eb(eb('ranked.place', '+', eb.fn.coalesce('inFlight.sending', sql.lit(0))), '<=', perEndpoint)),
          )
          .where('state', '=', 'pending')
          .where('nextAttemptAt', '<=', sql<Date>`now()`)
          .orderBy('nextAttemptAt')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      // The updated table is not aliased: the naming plugin maps the columns of an UPDATE's own table only without an alias.
      .updateTable('Delivery')
      .set({ lease: sql<string>`gen_random_uuid()`, nextAttemptAt: nowPlus(leaseMs, 'millisecond') })
      .from(['due', 'WebhookEndpoint as w', 'Event as e'])
      .whereRef('Delivery.id', '=', 'due.id')
      .whereRef('w.id', '=', 'Delivery.endpointId')
      .whereRef('e.id', '=', 'Delivery.eventId')
      .returning((eb) => [
        'Delivery.id',
        'Delivery.lease',
        'Delivery.trigger',
        'Delivery.attempts',
        'w.id as endpointId',
        'w.status',
        eb('w.failingSince', 'is not', null).$castTo<boolean>().as('failing'),
        'w.url',
        'w.secret',
        'w.previousSecret',
        'w.previousSecretExpiresAt',
        'e.id as eventId',
        'e.workspaceId',
        'e.correlationId',
        'e.type',
        'e.created',
        'e.data',
      ])
      .execute();
    return rows.map((row) => ({
      id: row.id,
      // Set by this very statement.
      lease: row.lease!,
      trigger: row.trigger,
      attempts: row.attempts,
      endpointId: row.endpointId,
      endpointEnabled: row.status === 'enabled',
      endpointFailing: row.failing,
      url: row.url,
      secret: row.secret,
      previousSecret: row.previousSecret,
      previousSecretExpiresAt: row.previousSecretExpiresAt,
      eventId: row.eventId,
      workspaceId: row.workspaceId,
      correlationId: row.correlationId,
      eventType: row.type,
      eventCreated: row.created,
      eventData: row.data,
    }));
  },

  /**
   * Records one attempt and moves its delivery on: to `state`, due again in `retryInS` seconds
   * while pending. Only the lease holder moves the delivery (a lease that ran out meanwhile was
   * taken over); the attempt is recorded either way, since the request went out.
   */
  recordAttempt: async (tx: EntityManager, claimed: ClaimedDelivery, attempt: AttemptRecord, state: DeliveryState, retryInS: number | null): Promise<void> => {
    await sqlIn(tx)
      .with('moved', (db) =>
        db
          .updateTable('Delivery')
          .set((eb) => ({
            attempts: eb('attempts', '+', 1),
            state,
            lease: null,
            nextAttemptAt: retryInS === null ? null : nowPlus(retryInS, 'second'),
            finishedAt: state === 'pending' ? null : sql<Date>`now()`,
          }))
          .where('id', '=', claimed.id)
          .where('lease', '=', claimed.lease)
          .where('state', '=', 'pending')
          // Named as read below: the plugin does not map the columns of a CTE that is not a SELECT.
          .returning('nextAttemptAt as nextAttemptAt'),
      )
      .insertInto('DeliveryAttempt')
      .values((eb) => ({
        deliveryId: claimed.id,
        eventId: claimed.eventId,
        endpointId: claimed.endpointId,
        url: attempt.url,
        trigger: claimed.trigger,
        attempt: claimed.attempts + 1,
        attemptedAt: attempt.attemptedAt,
        succeeded: attempt.succeeded,
        statusCode: attempt.statusCode,
        latencyMs: attempt.latencyMs,
        responseBody: attempt.responseBody,
        error: attempt.error,
        nextAttemptAt: eb.selectFrom('moved').select('nextAttemptAt'),
      }))
      .execute();
  },

  /** Drops a claimed delivery unsent (its endpoint was disabled after it was queued). */
  cancelClaimed: async (claimed: ClaimedDelivery): Promise<void> => {
    await sqlIn(em)
      .updateTable('Delivery')
      .set({ state: 'cancelled', lease: null, nextAttemptAt: null, finishedAt: sql<Date>`now()` })
      .where('id', '=', claimed.id)
      .where('lease', '=', claimed.lease)
      .where('state', '=', 'pending')
      .execute();
  },

  /** Drops every pending delivery to an endpoint that stopped receiving. */
  cancelPendingOf: async (tx: EntityManager, endpointId: string): Promise<void> => {
    await sqlIn(tx)
      .updateTable('Delivery')
      .set({ state: 'cancelled', lease: null, nextAttemptAt: null, finishedAt: sql<Date>`now()` })
      .where('endpointId', '=', endpointId)
      .where('state', '=', 'pending')
      .execute();
  },

  /** Queues one event for the given endpoints, due now. */
  enqueueEvent: async (tx: EntityManager, eventId: string, endpointIds: readonly string[], trigger: DeliveryTrigger): Promise<void> => {
    if (endpointIds.length === 0) return;
    await sqlIn(tx)
      .insertInto('Delivery')
      .columns(['eventId', 'endpointId', 'trigger', 'nextAttemptAt'])
      .expression((eb) =>
        eb
          // One row per endpoint id; the array goes as one parameter.
          .selectFrom(sql<{ endpoint: string }>`unnest(${[...endpointIds]}::uuid[])`.as('endpoint'))
          .select([eb.val(eventId).as('eventId'), sql.ref<string>('endpoint').as('endpointId'), eb.val(trigger).as('trigger'), sql<Date>`now()`.as('nextAttemptAt')]),
      )
      .execute();
  },

  /** Queues, for one endpoint, every event of its workspace created in [since, until] with one of `types`; returns how many. */
  enqueueReplay: async (tx: EntityManager, endpointId: string, workspaceId: string, since: Date, until: Date, types: readonly string[]): Promise<number> => {
    const row = await sqlIn(tx)
      .with('queued', (db) =>
        db
          .insertInto('Delivery')
          .columns(['eventId', 'endpointId', 'trigger', 'nextAttemptAt'])
          .expression((eb) =>
            eb
              .selectFrom('Event')
              .select(['id', eb.val(endpointId).as('endpointId'), sql.lit('replay').as('trigger'), sql<Date>`now()`.as('nextAttemptAt')])
              .where('workspaceId', '=', workspaceId)
              .where('created', '>=', since)
              .where('created', '<=', until)
              .where('type', '=', sql<never>`any(${[...types]}::text[])`),
          )
          .returning(sql.lit(1).as('queued')),
      )
      .selectFrom('queued')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .executeTakeFirst();
    return row?.count ?? 0;
  },
});

export type DeliveryRepository = ReturnType<typeof deliveryRepository>;
