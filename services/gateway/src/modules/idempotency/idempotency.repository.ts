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
        .insertInto('IdempotencyRecord')
        .values({
          id: newId(),
          workspace: request.workspaceId,
          key: request.key,
          fingerprint: request.fingerprint,
          state: 'in_flight',
          lockToken,
          lockedUntil: nowPlus(request.leaseMs, 'millisecond'),
          createdAt: now,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['workspace', 'key'])
            .doUpdateSet((eb) => ({
              fingerprint: eb.ref('excluded.fingerprint'),
              state: 'in_flight',
              lockToken: eb.ref('excluded.lockToken'),
              lockedUntil: eb.ref('excluded.lockedUntil'),
              createdAt: now,
              completedAt: null,
              responseStatus: null,
              responseHeaders: null,
              responseBody: null,
            }))
            .where((eb) =>
              eb.or([
                eb.and([
                  eb('IdempotencyRecord.state', '=', 'in_flight'),
                  eb('IdempotencyRecord.lockedUntil', '<', now),
                  eb('IdempotencyRecord.fingerprint', '=', eb.ref('excluded.fingerprint')),
                ]),
                eb('IdempotencyRecord.createdAt', '<', olderThan(request.ttlHours)),
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
      sql<number | null>`null::smallint`.as('responseStatus'),
      sql<Record<string, string | string[]> | null>`null::jsonb`.as('responseHeaders'),
      sql<Buffer | null>`null::bytea`.as('responseBody'),
    ])
    .unionAll((db) =>
      db
        .selectFrom('IdempotencyRecord')
        .select([sql<boolean>`false`.as('claimed'), 'fingerprint', 'state', 'responseStatus', 'responseHeaders', 'responseBody'])
        .where('workspace', '=', request.workspaceId)
        .where('key', '=', request.key)
        .where(({ not, exists, selectFrom }) => not(exists(selectFrom('claimed').select(sql`1`.as('one'))))),
    )
    .executeTakeFirst();
  if (row === undefined) return { kind: 'released' };
  if (row.claimed) return { kind: 'claimed', claim: { workspaceId: request.workspaceId, key: request.key, lockToken } };
  const response =
    row.state === 'completed' && row.responseStatus !== null
      ? { status: row.responseStatus, headers: row.responseHeaders ?? {}, body: row.responseBody ?? Buffer.alloc(0) }
      : undefined;
  return { kind: 'held', record: { fingerprint: row.fingerprint!, state: row.state!, response } };
};

/** Records the outcome for replay; a claim taken over meanwhile (lease ended) records nothing. */
export const completeClaim = async (orm: Orm, claim: Claim, response: RecordedResponse): Promise<void> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .updateTable('IdempotencyRecord')
    .set({
      state: 'completed',
      responseStatus: response.status,
      responseHeaders: response.headers,
      responseBody: response.body,
      completedAt: sql<Date>`now()`,
      lockToken: null,
      lockedUntil: null,
    })
    .where('workspace', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('lockToken', '=', claim.lockToken)
    .execute();
};

/** Extends the leases of claims still held (neither completed, released nor taken over) to `leaseMs` from now. */
export const renewClaims = async (orm: Orm, claims: readonly Claim[], leaseMs: number): Promise<void> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .updateTable('IdempotencyRecord')
    .set({ lockedUntil: nowPlus(leaseMs, 'millisecond') })
    .where((eb) => eb.or(claims.map((claim) => eb.and([eb('workspace', '=', claim.workspaceId), eb('key', '=', claim.key), eb('lockToken', '=', claim.lockToken)]))))
    .execute();
};

/** Frees the key for a retry (the request failed without an outcome worth keeping). */
export const releaseClaim = async (orm: Orm, claim: Claim): Promise<void> => {
  await sqlOf<GatewayDatabase>(orm.em)
    .deleteFrom('IdempotencyRecord')
    .where('workspace', '=', claim.workspaceId)
    .where('key', '=', claim.key)
    .where('lockToken', '=', claim.lockToken)
    .execute();
};

/** Deletes records older than the time to live (in-flight ones only once their lease is over). */
export const purgeExpiredRecords = async (orm: Orm, ttlHours: number): Promise<number> => {
  const result = await sqlOf<GatewayDatabase>(orm.em)
    .deleteFrom('IdempotencyRecord')
    .where('createdAt', '<', olderThan(ttlHours))
    .where((eb) => eb.or([eb('state', '=', 'completed'), eb('lockedUntil', '<', sql<Date>`now()`)]))
    .executeTakeFirst();
  return Number(result.numDeletedRows);
};
