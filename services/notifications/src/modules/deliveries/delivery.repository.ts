import type { WebhookEventType } from '@invoicing/contracts';
import { entityColumns, nowPlus, sqlOf } from '@invoicing/service-kit';
import type { EntityManager } from '@mikro-orm/postgresql';
import { sql } from 'kysely';
import type { NotificationsDatabase } from '../../database.ts';
import { DeliveryAttemptEntity } from './delivery-attempt.entity.ts';
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

// Values the code fixes (`'pending'`, `null`, `1`) are literals, as the SQL would spell them and as
// the partial indexes (`where state = 'pending'`) do; only a method's arguments are parameters.
const sqlIn = (em: EntityManager) => sqlOf<NotificationsDatabase>(em);

export const deliveryRepository = (em: EntityManager) => ({
  /** Deliveries still to be sent: queued, claimed or waiting for a retry. */
  countPending: async (): Promise<number> => {
    const row = await sqlIn(em)
      .selectFrom('deliveries')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('pending'))
      .where('state', '=', sql.lit('pending'))
      .executeTakeFirstOrThrow();
    return row.pending;
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
    const rows = await sqlIn(em)
      // Per endpoint, the deliveries sent now: claimed under a lease that has not run out.
      .with('in_flight', (db) =>
        db
          .selectFrom('deliveries')
          .select((eb) => ['endpoint_id', eb.fn.countAll<number>().as('sending')])
          .where('state', '=', sql.lit('pending'))
          .where('lease', 'is not', null)
          .where('next_attempt_at', '>', sql<Date>`now()`)
          .groupBy('endpoint_id'),
      )
      // The due deliveries, numbered per endpoint in the order they came due.
      .with('ranked', (db) =>
        db
          .selectFrom('deliveries')
          .select((eb) => ['id', 'endpoint_id', eb.fn.agg<number>('row_number').over((ob) => ob.partitionBy('endpoint_id').orderBy('next_attempt_at').orderBy('id')).as('place')])
          .where('state', '=', sql.lit('pending'))
          .where('next_attempt_at', '<=', sql<Date>`now()`),
      )
      // Those that fit in their endpoint's free slots, the earliest due first, locked.
      .with('due', (db) =>
        db
          .selectFrom('deliveries')
          .select('id')
          .where('id', 'in', (eb) =>
            eb
              .selectFrom('ranked')
              .leftJoin('in_flight', 'in_flight.endpoint_id', 'ranked.endpoint_id')
              .select('ranked.id')
              .where((eb) => eb(eb('ranked.place', '+', eb.fn.coalesce('in_flight.sending', sql.lit(0))), '<=', perEndpoint)),
          )
          .where('state', '=', sql.lit('pending'))
          .where('next_attempt_at', '<=', sql<Date>`now()`)
          .orderBy('next_attempt_at')
          .limit(limit)
          .forUpdate()
          .skipLocked(),
      )
      .updateTable('deliveries as d')
      .set({ lease: sql<string>`gen_random_uuid()`, next_attempt_at: nowPlus(leaseMs, 'millisecond') })
      .from(['due', 'webhook_endpoints as w', 'events as e'])
      .whereRef('d.id', '=', 'due.id')
      .whereRef('w.id', '=', 'd.endpoint_id')
      .whereRef('e.id', '=', 'd.event_id')
      .returning((eb) => [
        'd.id',
        'd.lease',
        'd.trigger',
        'd.attempts',
        'd.endpoint_id',
        'w.status',
        eb('w.failing_since', 'is not', null).$castTo<boolean>().as('failing'),
        'w.url',
        'w.secret',
        'w.previous_secret',
        'w.previous_secret_expires_at',
        'd.event_id',
        'e.workspace_id',
        'e.correlation_id',
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
      endpointId: row.endpoint_id,
      endpointEnabled: row.status === 'enabled',
      endpointFailing: row.failing,
      url: row.url,
      secret: row.secret,
      previousSecret: row.previous_secret,
      // Timestamps come back as PostgreSQL's text.
      previousSecretExpiresAt: row.previous_secret_expires_at === null ? null : new Date(row.previous_secret_expires_at),
      eventId: row.event_id,
      workspaceId: row.workspace_id,
      correlationId: row.correlation_id,
      eventType: row.type,
      eventCreated: new Date(row.created),
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
          .updateTable('deliveries')
          .set((eb) => ({
            attempts: eb('attempts', '+', sql.lit(1)),
            state,
            lease: sql.lit(null),
            next_attempt_at: retryInS === null ? sql.lit(null) : nowPlus(retryInS, 'second'),
            finished_at: state === 'pending' ? sql.lit(null) : sql<Date>`now()`,
          }))
          .where('id', '=', claimed.id)
          .where('lease', '=', claimed.lease)
          .where('state', '=', sql.lit('pending'))
          .returning('next_attempt_at'),
      )
      .insertInto('delivery_attempts')
      .values((eb) => ({
        ...entityColumns(tx, DeliveryAttemptEntity, {
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
        }),
        // The delivery's new due time; null when another replica took it over.
        next_attempt_at: eb.selectFrom('moved').select('next_attempt_at'),
      }))
      .execute();
  },

  /** Drops a claimed delivery unsent (its endpoint was disabled after it was queued). */
  cancelClaimed: async (claimed: ClaimedDelivery): Promise<void> => {
    await sqlIn(em)
      .updateTable('deliveries')
      .set({ state: sql.lit('cancelled'), lease: sql.lit(null), next_attempt_at: sql.lit(null), finished_at: sql<Date>`now()` })
      .where('id', '=', claimed.id)
      .where('lease', '=', claimed.lease)
      .where('state', '=', sql.lit('pending'))
      .execute();
  },

  /** Drops every pending delivery to an endpoint that stopped receiving. */
  cancelPendingOf: async (tx: EntityManager, endpointId: string): Promise<void> => {
    await sqlIn(tx)
      .updateTable('deliveries')
      .set({ state: sql.lit('cancelled'), lease: sql.lit(null), next_attempt_at: sql.lit(null), finished_at: sql<Date>`now()` })
      .where('endpoint_id', '=', endpointId)
      .where('state', '=', sql.lit('pending'))
      .execute();
  },

  /** Queues one event for the given endpoints, due now. */
  enqueueEvent: async (tx: EntityManager, eventId: string, endpointIds: readonly string[], trigger: DeliveryTrigger): Promise<void> => {
    if (endpointIds.length === 0) return;
    await sqlIn(tx)
      .insertInto('deliveries')
      .columns(['event_id', 'endpoint_id', 'trigger', 'next_attempt_at'])
      .expression((eb) =>
        eb
          // One row per endpoint id; the array goes as one parameter.
          .selectFrom(sql<{ endpoint_id: string }>`unnest(${[...endpointIds]}::uuid[])`.as('endpoint_id'))
          .select([eb.val(eventId).as('event_id'), 'endpoint_id', eb.val(trigger).as('trigger'), sql<Date>`now()`.as('next_attempt_at')]),
      )
      .execute();
  },

  /** Queues, for one endpoint, every event of its workspace created in [since, until] with one of `types`; returns how many. */
  enqueueReplay: async (tx: EntityManager, endpointId: string, workspaceId: string, since: Date, until: Date, types: readonly WebhookEventType[]): Promise<number> => {
    const row = await sqlIn(tx)
      .with('queued', (db) =>
        db
          .insertInto('deliveries')
          .columns(['event_id', 'endpoint_id', 'trigger', 'next_attempt_at'])
          .expression((eb) =>
            eb
              .selectFrom('events')
              .select(['id', eb.val(endpointId).as('endpoint_id'), sql.lit('replay').as('trigger'), sql<Date>`now()`.as('next_attempt_at')])
              .where('workspace_id', '=', workspaceId)
              .where('created', '>=', since)
              .where('created', '<=', until)
              .where((eb) => eb('type', '=', eb.fn.any(eb.val([...types])))),
          )
          .returning(sql.lit(1).as('queued')),
      )
      .selectFrom('queued')
      .select((eb) => eb.cast<number>(eb.fn.countAll(), 'integer').as('count'))
      .executeTakeFirstOrThrow();
    return row.count;
  },
});

export type DeliveryRepository = ReturnType<typeof deliveryRepository>;
