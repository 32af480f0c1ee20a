import type { EntityManager } from '@mikro-orm/postgresql';
import { NOTIFICATIONS_SCHEMA } from '../../database.ts';

const S = NOTIFICATIONS_SCHEMA;

export type DeliveryTrigger = 'event' | 'replay' | 'redeliver';
export type DeliveryState = 'pending' | 'succeeded' | 'failed' | 'cancelled';

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

interface ClaimedRow {
  id: string;
  lease: string;
  trigger: DeliveryTrigger;
  attempts: number;
  endpoint_id: string;
  status: string;
  failing: boolean;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
  event_id: string;
  workspace_id: string;
  correlation_id: string | null;
  type: string;
  created: Date;
  data: unknown;
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

const toClaimed = (row: ClaimedRow): ClaimedDelivery => ({
  id: row.id,
  lease: row.lease,
  trigger: row.trigger,
  attempts: row.attempts,
  endpointId: row.endpoint_id,
  endpointEnabled: row.status === 'enabled',
  endpointFailing: row.failing,
  url: row.url,
  secret: row.secret,
  previousSecret: row.previous_secret,
  previousSecretExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at) : null,
  eventId: row.event_id,
  workspaceId: row.workspace_id,
  correlationId: row.correlation_id,
  eventType: row.type,
  eventCreated: new Date(row.created),
  eventData: row.data,
});

export const deliveryRepository = (em: EntityManager) => ({
  /** Deliveries still to be sent: queued, claimed or waiting for a retry. */
  countPending: async (): Promise<number> => {
    const [row] = await em.execute<{ pending: string }[]>(`select count(*) as pending from ${S}.deliveries where state = 'pending'`);
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
    const rows = await em.execute<ClaimedRow[]>(
      `with in_flight as (
         select endpoint_id, count(*) as sending from ${S}.deliveries
          where state = 'pending' and lease is not null and next_attempt_at > now()
          group by endpoint_id
       ),
       ranked as (
         select d.id, d.endpoint_id, row_number() over (partition by d.endpoint_id order by d.next_attempt_at, d.id) as place
           from ${S}.deliveries d
          where d.state = 'pending' and d.next_attempt_at <= now()
       ),
       due as (
         select id from ${S}.deliveries
          where id in (select r.id from ranked r left join in_flight f using (endpoint_id) where r.place + coalesce(f.sending, 0) <= ?)
            and state = 'pending' and next_attempt_at <= now()
          order by next_attempt_at
          limit ?
            for update skip locked
       )
       update ${S}.deliveries d
          set lease = gen_random_uuid(), next_attempt_at = now() + ? * interval '1 millisecond'
         from due, ${S}.webhook_endpoints w, ${S}.events e
        where d.id = due.id and w.id = d.endpoint_id and e.id = d.event_id
       returning d.id, d.lease, d.trigger, d.attempts, w.id as endpoint_id, w.status, w.failing_since is not null as failing, w.url, w.secret, w.previous_secret,
                 w.previous_secret_expires_at, e.id as event_id, e.workspace_id, e.correlation_id, e.type, e.created, e.data`,
      [perEndpoint, limit, leaseMs],
    );
    return rows.map(toClaimed);
  },

  /**
   * Records one attempt and moves its delivery on: to `state`, due again in `retryInS` seconds
   * while pending. Only the lease holder moves the delivery (a lease that ran out meanwhile was
   * taken over); the attempt is recorded either way, since the request went out.
   */
  recordAttempt: async (tx: EntityManager, claimed: ClaimedDelivery, attempt: AttemptRecord, state: DeliveryState, retryInS: number | null): Promise<void> => {
    await tx.execute(
      `with moved as (
         update ${S}.deliveries
            set attempts = attempts + 1, state = ?, lease = null,
                next_attempt_at = case when ?::int is null then null else now() + ?::int * interval '1 second' end,
                finished_at = case when ? = 'pending' then null else now() end
          where id = ? and lease = ? and state = 'pending'
         returning next_attempt_at
       )
       insert into ${S}.delivery_attempts
         (delivery_id, event_id, endpoint_id, url, trigger, attempt, attempted_at, succeeded, status_code, latency_ms, response_body, error, next_attempt_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, (select next_attempt_at from moved))`,
      [
        state, retryInS, retryInS, state, claimed.id, claimed.lease,
        claimed.id, claimed.eventId, claimed.endpointId, attempt.url, claimed.trigger, claimed.attempts + 1, attempt.attemptedAt,
        attempt.succeeded, attempt.statusCode, attempt.latencyMs, attempt.responseBody, attempt.error,
      ],
    );
  },

  /** Drops a claimed delivery unsent (its endpoint was disabled after it was queued). */
  cancelClaimed: async (claimed: ClaimedDelivery): Promise<void> => {
    await em.execute(
      `update ${S}.deliveries set state = 'cancelled', lease = null, next_attempt_at = null, finished_at = now() where id = ? and lease = ? and state = 'pending'`,
      [claimed.id, claimed.lease],
    );
  },

  /** Drops every pending delivery to an endpoint that stopped receiving. */
  cancelPendingOf: async (tx: EntityManager, endpointId: string): Promise<void> => {
    await tx.execute(
      `update ${S}.deliveries set state = 'cancelled', lease = null, next_attempt_at = null, finished_at = now() where endpoint_id = ? and state = 'pending'`,
      [endpointId],
    );
  },

  /** Queues one event for the given endpoints, due now. */
  enqueueEvent: async (tx: EntityManager, eventId: string, endpointIds: readonly string[], trigger: DeliveryTrigger): Promise<void> => {
    if (endpointIds.length === 0) return;
    await tx.execute(
      `insert into ${S}.deliveries (event_id, endpoint_id, trigger, next_attempt_at)
       select ?, endpoint_id, ?, now() from unnest(array[?]::uuid[]) as endpoint_id`,
      // An array parameter is spread into a list of literals, hence `array[?]`.
      [eventId, trigger, [...endpointIds]],
    );
  },

  /** Queues, for one endpoint, every event of its workspace created in [since, until] with one of `types`; returns how many. */
  enqueueReplay: async (tx: EntityManager, endpointId: string, workspaceId: string, since: Date, until: Date, types: readonly string[]): Promise<number> => {
    const [row] = await tx.execute<{ count: number }[]>(
      `with queued as (
         insert into ${S}.deliveries (event_id, endpoint_id, trigger, next_attempt_at)
         select e.id, ?, 'replay', now()
           from ${S}.events e
          where e.workspace_id = ? and e.created >= ? and e.created <= ? and e.type = any(array[?]::text[])
         returning 1
       )
       select count(*)::int as count from queued`,
      [endpointId, workspaceId, since, until, [...types]],
    );
    return row?.count ?? 0;
  },
});

export type DeliveryRepository = ReturnType<typeof deliveryRepository>;
