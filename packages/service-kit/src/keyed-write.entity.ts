import { defineEntity, p } from '@mikro-orm/postgresql';

/**
 * The recorded outcome of a keyed write, per workspace and key, as `keyedWritesTableSql` makes the
 * table. Metadata only, so that `sqlOf` names the table and its columns; the migrations own the
 * table. Not the gateway's `IdempotencyRecord`, whose table of the same name lives in its schema.
 */
export const KeyedWriteEntity = defineEntity({
  name: 'KeyedWrite',
  tableName: 'idempotency_records',
  properties: {
    workspaceId: p.text().primary(),
    key: p.text().primary(),
    fingerprint: p.text(),
    responseStatus: p.smallint(),
    responseContentType: p.text(),
    responseBody: p.text(),
    createdAt: p.datetime().defaultRaw('now()'),
  },
});
