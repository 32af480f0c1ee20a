import { newId, type Orm } from '@invoicing/service-kit';
import { sql } from 'kysely';
import type { RecordedResponse } from './idempotency.domain.ts';

/** The right of one request to run with a key, until it completes, is released, or its lease ends. */
export interface Claim {
  workspaceId: string;
  key: string;
  lockToken: string;
}

export interface ExistingRecord {
  fingerprint: string;
  state: 'in_flight' | 'completed';
  response: RecordedResponse | undefined;
}

export interface ClaimRequest {
  workspaceId: string;
  key: string;
  fingerprint: string;
  leaseMs: number;
  ttlHours: number;
}

export type ClaimAttempt =
  | { kind: 'claimed'; claim: Claim }
  /** The key is held by the record of another request, or of this one. */
  | { kind: 'held'; record: ExistingRecord }
  /** Another request claimed the key and released it again while this one looked: try again. */
  | { kind: 'released' };

interface ClaimRow {
  claimed: boolean;
  fingerprint: string | null;
  state: 'in_flight' | 'completed' | null;
  response_status: number | null;
  response_headers: Record<string, string | string[]> | null;
  response_body: Buffer | null;
}

/**
 * Claims the key, or reads what holds it, in one statement (one round trip either way): a new
 * key, a record past its time to live, or an in-flight record of the same request whose lease ran
 * out (its gateway died) is taken; anything else is returned as it stands. The read shares the
 * statement's snapshot, so a record committed by another request while this one ran may be
 * missing from it: that is `released`, and the caller tries again.
 */
export const claimKey = async (orm: Orm, request: ClaimRequest): Promise<ClaimAttempt> => {
  const lockToken = newId();
  const { rows } = await sql<ClaimRow>`
    with claimed as (
      insert into gateway.idempotency_records (id, workspace_id, key, fingerprint, state, lock_token, locked_until)
      values (${newId()}, ${request.workspaceId}, ${request.key}, ${request.fingerprint}, 'in_flight', ${lockToken},
              now() + ${request.leaseMs}::integer * interval '1 millisecond')
      on conflict (workspace_id, key) do update set
        fingerprint = excluded.fingerprint, state = 'in_flight', lock_token = excluded.lock_token,
        locked_until = excluded.locked_until, created_at = now(), completed_at = null,
        response_status = null, response_headers = null, response_body = null
      where (idempotency_records.state = 'in_flight' and idempotency_records.locked_until < now()
             and idempotency_records.fingerprint = excluded.fingerprint)
         or idempotency_records.created_at < now() - ${request.ttlHours}::integer * interval '1 hour'
      returning 1
    )
    select true as claimed, null as fingerprint, null as state, null::smallint as response_status,
           null::jsonb as response_headers, null::bytea as response_body
    from claimed
    union all
    select false, fingerprint, state, response_status, response_headers, response_body
    from gateway.idempotency_records
    where workspace_id = ${request.workspaceId} and key = ${request.key} and not exists (select from claimed)`.execute(orm.em.getKysely());
  const [row] = rows;
  if (row === undefined) return { kind: 'released' };
  if (row.claimed) return { kind: 'claimed', claim: { workspaceId: request.workspaceId, key: request.key, lockToken } };
  const response =
    row.state === 'completed' && row.response_status !== null
      ? { status: row.response_status, headers: row.response_headers ?? {}, body: row.response_body ?? Buffer.alloc(0) }
      : undefined;
  return { kind: 'held', record: { fingerprint: row.fingerprint!, state: row.state!, response } };
};

/** Records the outcome for replay; a claim taken over meanwhile (lease ended) records nothing. */
export const completeClaim = async (orm: Orm, claim: Claim, response: RecordedResponse): Promise<void> => {
  await sql`
    update gateway.idempotency_records set
      state = 'completed', response_status = ${response.status}, response_headers = ${JSON.stringify(response.headers)}::jsonb,
      response_body = ${response.body}, completed_at = now(), lock_token = null, locked_until = null
    where workspace_id = ${claim.workspaceId} and key = ${claim.key} and lock_token = ${claim.lockToken}`.execute(orm.em.getKysely());
};

/** Frees the key for a retry (the request failed without an outcome worth keeping). */
export const releaseClaim = async (orm: Orm, claim: Claim): Promise<void> => {
  await sql`
    delete from gateway.idempotency_records
    where workspace_id = ${claim.workspaceId} and key = ${claim.key} and lock_token = ${claim.lockToken}`.execute(orm.em.getKysely());
};

/** Deletes records older than the time to live (in-flight ones only once their lease is over). */
export const purgeExpiredRecords = async (orm: Orm, ttlHours: number): Promise<number> => {
  const result = await sql`
    delete from gateway.idempotency_records
    where created_at < now() - ${ttlHours}::integer * interval '1 hour'
      and (state = 'completed' or locked_until < now())`.execute(orm.em.getKysely());
  return Number(result.numAffectedRows ?? 0);
};
