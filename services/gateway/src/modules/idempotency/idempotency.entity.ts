import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * The outcome of one request made with an Idempotency-Key, per data space (a workspace's live or
 * test data) and key. `in_flight`
 * while the first request runs (held by `lockToken` until `lockedUntil`), then `completed` with
 * the response to replay.
 */
export const IdempotencyRecordSchema = defineEntity({
  name: 'IdempotencyRecord',
  tableName: 'idempotency_records',
  properties: {
    id: p.uuid().primary(),
    space: p.uuid().fieldName('workspace_id'),
    key: p.text(),
    fingerprint: p.text(),
    state: p.enum(['in_flight', 'completed'] as const),
    lockToken: p.uuid().nullable(),
    lockedUntil: p.datetime().nullable(),
    responseStatus: p.smallint().nullable(),
    responseHeaders: p.json<Record<string, string | string[]>>().nullable(),
    responseBody: p.blob().$type<Buffer>().nullable(),
    createdAt: p.datetime().onCreate(() => new Date()),
    completedAt: p.datetime().nullable(),
  },
  uniques: [{ name: 'idempotency_records_workspace_key_unique', properties: ['space', 'key'] }],
});

export class IdempotencyRecord extends IdempotencyRecordSchema.class {}
IdempotencyRecordSchema.setClass(IdempotencyRecord);
