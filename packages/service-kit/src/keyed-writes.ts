import { AsyncLocalStorage } from 'node:async_hooks';
import { PROBLEM_CONTENT_TYPE } from '@invoicing/contracts';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { sql, type QueryCreator } from 'kysely';
import { z } from 'zod';
import { AppError } from './app-error.ts';
import type { Orm } from './database.ts';
import type { KitDatabase } from './kit-entities.ts';
import { PeriodicTask } from './periodic-task.ts';
import { renderProblem, toAppError } from './problem.ts';
import { isRecordable, REPLAYED_HEADER } from './request-fingerprint.ts';
import { insertOnlyWith, nowPlus, sqlOf } from './typed-sql.ts';

/** Settings of a service with writes that take an Idempotency-Key. */
export const keyedWriteSettings = {
  IDEMPOTENCY_TTL_HOURS: z.coerce
    .number()
    .int()
    .min(24, 'must be at least 24 (records are kept at least a day)')
    .default(24)
    .describe("How long the outcome of a keyed write is kept; the same as the gateway's IDEMPOTENCY_TTL_HOURS."),
};

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
const PURGE_INTERVAL_MS = 15 * 60_000;

/**
 * The table of keyed-write outcomes, in the schema of the service that owns the writes. Applied
 * migrations call it, so it never changes.
 */
export const keyedWritesTableSql = (schema: string): string[] => [
  `create table "${schema}".idempotency_records (
     workspace_id text not null,
     key text not null,
     fingerprint text not null,
     response_status smallint not null,
     response_content_type text not null,
     response_body text not null,
     created_at timestamptz not null default now(),
     primary key (workspace_id, key)
   )`,
  `create index idempotency_records_created on "${schema}".idempotency_records (created_at)`,
];

export const dropKeyedWritesTableSql = (schema: string): string[] => [`drop table if exists "${schema}".idempotency_records`];

export interface RecordedOutcome {
  status: number;
  contentType: string;
  body: string;
}

/** A request's right to the outcome of its workspace's key: the same request (fingerprint) replays it. */
export interface KeyedWriteClaim {
  workspaceId: string;
  key: string;
  fingerprint: string;
}

/**
 * The outcomes of a service's keyed writes, per workspace and key. A success is recorded in the
 * transaction of the write itself, so the write and its record commit together or not at all: a
 * repeat that reaches the service after the gateway lost the answer (its process died, say) gets
 * the original response and changes nothing.
 */
export class KeyedWrites {
  readonly #orm: Orm;
  readonly #schema: string;
  readonly #ttlHours: number;

  constructor({ orm, schema, ttlHours }: { orm: Orm; schema: string; ttlHours: number }) {
    this.#orm = orm;
    this.#schema = schema;
    this.#ttlHours = ttlHours;
  }

  /** The moment before which a record has outlived its time to live, in PostgreSQL's clock. */
  #expiry() {
    return nowPlus(-this.#ttlHours, 'hour');
  }

  /**
   * The insert of outcomes on `db`, in the service's schema: one row returned per outcome recorded.
   * A record past its time to live is free again, as it is at the gateway. With `onlyWith`, the
   * name of a CTE of the same statement, the one outcome is recorded only when that CTE has a row.
   */
  #insertOn(db: QueryCreator<KitDatabase>, entries: readonly { claim: KeyedWriteClaim; outcome: RecordedOutcome }[], onlyWith?: string) {
    const rows = entries.map(({ claim, outcome }) => ({
      workspace_id: claim.workspaceId,
      key: claim.key,
      fingerprint: claim.fingerprint,
      response_status: outcome.status,
      response_content_type: outcome.contentType,
      response_body: outcome.body,
    }));
    const inserting = onlyWith === undefined ? db.insertInto('idempotency_records').values(rows) : insertOnlyWith(db, 'idempotency_records', onlyWith, rows[0]!);
    return inserting
      .onConflict((oc) =>
        oc
          .columns(['workspace_id', 'key'])
          .doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            response_status: eb.ref('excluded.response_status'),
            response_content_type: eb.ref('excluded.response_content_type'),
            response_body: eb.ref('excluded.response_body'),
            created_at: sql<Date>`now()`,
          }))
          .where('idempotency_records.created_at', '<', this.#expiry()),
      )
      .returning(sql<number>`1`.as('recorded'));
  }

  /** Inserts outcomes in one statement on `em`'s connection (its transaction, if any); one row per outcome recorded. */
  #insert(em: EntityManager, entries: readonly { claim: KeyedWriteClaim; outcome: RecordedOutcome }[]) {
    return this.#insertOn(sqlOf<KitDatabase>(em, this.#schema), entries).execute();
  }

  /**
   * Records an outcome on the connection of the current transaction, if any; false when the key
   * already holds a live outcome (a repeat got there first). Waits for a concurrent uncommitted
   * record of the same key, so two repeats never both write.
   */
  async record(claim: KeyedWriteClaim, outcome: RecordedOutcome): Promise<boolean> {
    const rows = await this.#insert(this.#orm.em, [{ claim, outcome }]);
    return rows.length === 1;
  }

  /**
   * Records several outcomes as part of a write the caller sends in its own transaction: the
   * insert, on `db` (a query creator of that transaction, in the schema of these records), to put
   * in a data-modifying CTE of the write, so the outcomes cost no round trip of their own. It
   * returns one row per outcome recorded: fewer than given when some key already holds a live
   * outcome, and then the caller rolls back. Two outcomes for one key in one call are an error.
   */
  recordManyIn<DB>(db: QueryCreator<DB>, entries: readonly { claim: KeyedWriteClaim; outcome: RecordedOutcome }[]) {
    return this.#insertOn(db as unknown as QueryCreator<KitDatabase>, entries);
  }

  /**
   * Records one outcome as a CTE of a write that is a single statement, with no transaction around
   * it: the outcome is recorded only when the CTE `onlyWith` of that statement has a row (the
   * write can be made), and the statement's change should then be written only when this returns
   * its row (the key was free), so the write and its record are made together or not at all.
   */
  recordIn<DB>(db: QueryCreator<DB>, entry: { claim: KeyedWriteClaim; outcome: RecordedOutcome }, onlyWith: string) {
    return this.#insertOn(db as unknown as QueryCreator<KitDatabase>, [entry], onlyWith);
  }

  async find(workspaceId: string, key: string): Promise<(RecordedOutcome & { fingerprint: string }) | undefined> {
    const row = await sqlOf<KitDatabase>(this.#orm.em.fork(), this.#schema)
      .selectFrom('idempotency_records')
      .select(['fingerprint', 'response_status', 'response_content_type', 'response_body'])
      .where('workspace_id', '=', workspaceId)
      .where('key', '=', key)
      .where('created_at', '>=', this.#expiry())
      .executeTakeFirst();
    return row && { fingerprint: row.fingerprint, status: row.response_status, contentType: row.response_content_type, body: row.response_body };
  }

  async purgeExpired(): Promise<number> {
    const { numDeletedRows } = await sqlOf<KitDatabase>(this.#orm.em.fork(), this.#schema)
      .deleteFrom('idempotency_records')
      .where('created_at', '<', this.#expiry())
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }

  /**
   * Deletes expired records once started, then every 15 minutes until stopped; errors (a database
   * away) only delay the next purge. Started as a worker of the service (`assembleService`).
   */
  purgeTask(onError: (error: unknown) => void): PeriodicTask {
    return new PeriodicTask({ intervalMs: PURGE_INTERVAL_MS, run: async () => void (await this.purgeExpired()), onError });
  }
}

const afterCommitQueue = new AsyncLocalStorage<(() => void)[]>();

/**
 * Runs `action` once the current keyed write has committed (a nudge to a relay that should find
 * the write's outbox rows), or at once outside one, where the caller's own transaction has
 * committed already.
 */
export const afterCommit = (action: () => void): void => {
  const queue = afterCommitQueue.getStore();
  if (queue) queue.push(action);
  else action();
};

/**
 * A repeat found the key's outcome already recorded: its transaction is rolled back, and the
 * outcome replayed. A handler that records its own outcome throws it for the same answer.
 */
export class AlreadyRecorded extends Error {
  override name = 'AlreadyRecorded';
}

/**
 * A keyed write whose handler commits in a transaction it shares with other requests (billing's
 * group commit of finalizes writes many in one) records its outcome in that transaction itself,
 * through this, so the write and its record still commit together or not at all. The handler gets
 * it as an argument (registerOperation's `recordsOwnOutcome`), never from ambient state.
 */
export interface SelfRecordedWrite {
  claim: KeyedWriteClaim;
  writes: KeyedWrites;
  /** What to record when the handler answers `result`: the response exactly as it will be sent. */
  outcomeOf: (result: unknown) => RecordedOutcome;
  /** Tells that the transaction holding the outcome's record has committed. */
  committed: (outcome: RecordedOutcome) => void;
}

const replay = async (reply: FastifyReply, writes: KeyedWrites, claim: KeyedWriteClaim): Promise<FastifyReply> => {
  const recorded = await writes.find(claim.workspaceId, claim.key);
  if (!recorded) throw new AppError('idempotency_key_in_use', 'A request with this Idempotency-Key is still running; retry once it has finished.');
  if (recorded.fingerprint !== claim.fingerprint) {
    throw new AppError('idempotency_key_reused', 'This Idempotency-Key was already used with another request (method, path or body); use a new key.');
  }
  reply.code(recorded.status).header(REPLAYED_HEADER, 'true');
  if (recorded.status === 204) return reply.send();
  return reply.type(recorded.contentType).send(recorded.body);
};

/**
 * Runs a write under an Idempotency-Key: the handler and the record of its response in one
 * transaction (the handler's own transactions become savepoints in it). A repeat whose key holds a
 * response gets that response; an error worth keeping (see isRecordable) is recorded after the
 * rollback, since it changed nothing.
 */
/**
 * The handler runs outside any transaction of ours and records its outcome where it commits its
 * write (see SelfRecordedWrite). An answer it gave without writing (an invoice already finalized,
 * say) changed nothing, so it is recorded here on its own, as an error outcome is.
 */
const runSelfRecorded = async (
  writes: KeyedWrites,
  claim: KeyedWriteClaim,
  outcomeOf: (result: unknown) => RecordedOutcome,
  handle: (keyed: SelfRecordedWrite) => Promise<unknown>,
): Promise<string> => {
  let recorded: RecordedOutcome | undefined;
  const result = await handle({ claim, writes, outcomeOf, committed: (outcome) => void (recorded = outcome) });
  if (recorded) return recorded.body;
  const outcome = outcomeOf(result);
  if (!(await writes.record(claim, outcome))) throw new AlreadyRecorded();
  return outcome.body;
};

export const runKeyedWrite = async (
  {
    request,
    reply,
    orm,
    writes,
    claim,
    recordsOwnOutcome = false,
  }: { request: FastifyRequest; reply: FastifyReply; orm: Orm; writes: KeyedWrites; claim: KeyedWriteClaim; recordsOwnOutcome?: boolean },
  /** With `recordsOwnOutcome`, called with the keyed write whose outcome it records; else with none. */
  handle: (keyed?: SelfRecordedWrite) => Promise<unknown>,
): Promise<unknown> => {
  const committed: (() => void)[] = [];
  const outcomeOf = (result: unknown): RecordedOutcome => {
    const status = reply.statusCode;
    return { status, contentType: JSON_CONTENT_TYPE, body: status === 204 ? '' : (reply.serialize(result) as string) };
  };
  try {
    const body = await afterCommitQueue.run(committed, async () => {
      if (recordsOwnOutcome) return runSelfRecorded(writes, claim, outcomeOf, handle);
      return orm.em.transactional(async () => {
        const outcome = outcomeOf(await handle());
        if (!(await writes.record(claim, outcome))) throw new AlreadyRecorded();
        return outcome.body;
      });
    });
    for (const action of committed) action();
    if (reply.statusCode === 204) return reply.send();
    return reply.type(JSON_CONTENT_TYPE).send(body);
  } catch (error) {
    if (error instanceof AlreadyRecorded) return replay(reply, writes, claim);
    const appError = toAppError(error);
    if (!isRecordable(appError.status)) throw error;
    const problem = JSON.stringify(renderProblem(appError.code, appError.status, appError.message, String(request.id), appError.errors));
    if (!(await writes.record(claim, { status: appError.status, contentType: PROBLEM_CONTENT_TYPE, body: problem }))) return replay(reply, writes, claim);
    throw error;
  }
};
