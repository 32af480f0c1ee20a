import { newId, nowPlus, sqlOf, type Orm } from '@invoicing/service-kit';
import { sql } from 'kysely';
import type { GatewayDatabase } from '../../database.ts';
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

/** The moment before which a record created has outlived its time to live. */
const olderThan = (ttlHours: number) => nowPlus(-ttlHours, 'hour');

/**
 * Claims the key, or reads what holds it, in one statement (one round trip either way): a new
 * key, a record past its time to live, or an in-flight record of the same request whose lease ran
 * out (its gateway died) is taken; anything else is returned as it stands. The read shares the
 * statement's snapshot, so a record committed by another request while this one ran may be
 * missing from it: that is `released`, and the caller tries again.
 */
export const claimKey = async (orm: Orm, request: ClaimRequest): Promise<ClaimAttempt> => {
  const lockToken = newId();
  const now = sql<Date>`now()`;
  const row = await sqlOf<GatewayDatabase>(orm.em)
    .with('claimed', (db) =>
      db
        .insertInto('idempotency_records')
        .values({
          id: newId(),
          workspace_id: request.workspaceId,
          key: request.key,
          fingerprint: request.fingerprint,
          state: 'in_flight',
          lock_token: lockToken,
          locked_until: nowPlus(request.leaseMs, 'millisecond'),
          created_at: now,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['workspace_id', 'key'])
            .doUpdateSet((eb) => ({
              fingerprint: eb.ref('excluded.fingerprint'),
              state: 'in_flight',
              lock_token: eb.ref('excluded.lock_token'),
              locked_until: eb.ref('excluded.locked_until'),
              created_at: now,
              completed_at: null,
              response_status: null,
              response_headers: null,
              response_body: null,
            }))
            .where((eb) =>
              eb.or([
                eb.and([
                  eb('idempotency_records.state', '=', 'in_flight'),
                  eb('idempotency_records.locked_until', '<', now),
                  eb('idempotency_records.fingerprint', '=', eb.ref('excluded.fingerprint')),
                ]),
                eb('idempotency_records.created_at', '<', olderThan(request.ttlHours)),
              ]),
            ),
        )
        .returning(sql<number>`1`.as('one')),
    )
    .selectFrom('claimed')
    .select([
      sql<boolean>`true`.as('claimed'),
      sql<string | null>`null`.as('fingerprint'),
      sql<ExistingRecord['state'] | null>`null`.as('state'),
      sql<number | null>`null::smallint`.as('response_status'),
      sql<Record<string, string | string[]> | null>`null::jsonb`.as('response_headers'),
      sql<Buffer | null>`null::bytea`.as('response_body'),
    ])
    .unionAll((db) =>
      db
        .selectFrom('idempotency_records')
        .select([sql<boolean>`false`.as('claimed'), 'fingerprint', 'state', 'response_status', 'response_headers', 'response_body'])
        .where('workspace_id', '=', request.workspaceId)
        .where('key', '=', request.key)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('claimed').select(sql`1`.as('one'))))),
    )
    .executeTakeFirst();
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
  await sqlOf<GatewayDatabase>(orm.em)
    .updateTable('idempotency_records')
    .set({
      state: 'completed',
      response_status: response.status,
      response_headers: response.headers,
      response_body: response.body,
      completed_at: sql<Date>`now()`,
      lock_token: null,
      locked_until: null,
    })
    .where('workspace_id', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('lock_token', '=', claim.lockToken)
    .execute();
};

/** Extends the leases of claims still held (neither completed, released nor taken over) to `leaseMs` from now. */
export const renewClaims = async (orm: Orm, claims: readonly Claim[], leaseMs: number): Promise<void> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .updateTable('idempotency_records')
    .set({ locked_until: nowPlus(leaseMs, 'millisecond') })
    .where((eb) => eb(eb.refTuple('workspace_id', 'key', 'lock_token'), 'in', claims.map((claim) => eb.tuple(claim.workspaceId, claim.key, claim.lockToken))))
    .execute();
};

/** Frees the key for a retry (the request failed without an outcome worth keeping). */
export const releaseClaim = async (orm: Orm, claim: Claim): Promise<void> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .deleteFrom('idempotency_records')
    .where('workspace_id', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('lock_token', '=', claim.lockToken)
    .execute();
};

/** Deletes records older than the time to live (in-flight ones only once their lease is over). */
export const purgeExpiredRecords = async (orm: Orm, ttlHours: number): Promise<number> => {
  const result = await sqlOf<GatewayDatabase>(orm.em)
    .deleteFrom('idempotency_records')
    .where('created_at', '<', olderThan(ttlHours))
    .where((eb) => eb.or([eb('state', '=', 'completed'), eb('locked_until', '<', sql<Date>`now()`)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
