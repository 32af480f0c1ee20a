// The kit's own statements (the outbox and keyed writes every service shares), for its committed
// SQL. They run on billing's schema, which has both tables; the statements name whichever schema
// their service gives.
import { addToOutbox, KeyedWrites, OutboxRelay, pingDatabase, sqlOf } from '@invoicing/service-kit';
import { makeEnvelope } from '@invoicing/service-kit/events/make-envelope';
import { moduleExamples, type ServiceSqlExamples } from '@invoicing/testing/committed-sql';
import { BILLING_SCHEMA, openBillingDatabase } from '../../services/billing/src/database.ts';

const WORKSPACE = '00000000-0000-4000-8000-000000000001';
const claim = { workspaceId: WORKSPACE, key: 'key-1', fingerprint: 'f'.repeat(64) };
const outcome = { status: 201, contentType: 'application/json; charset=utf-8', body: '{}' };
const keyedWrites = (orm: Parameters<typeof pingDatabase>[0]) => new KeyedWrites({ orm, schema: BILLING_SCHEMA, ttlHours: 24 });
const bus = { publish: async () => {}, subscribe: async () => {}, close: async () => {} };
const relay = (orm: Parameters<typeof pingDatabase>[0]) => new OutboxRelay({ orm, schema: BILLING_SCHEMA, bus: bus as never, onError: () => {} });

export const KIT_SQL_EXAMPLES: ServiceSqlExamples = {
  folder: 'packages/service-kit',
  database: { schema: BILLING_SCHEMA, open: openBillingDatabase },
  repositories: [
    moduleExamples('src/events/outbox.sql', 'addToOutbox and OutboxRelay (events/outbox.ts)', {
      addToOutbox: (em) => em.transactional((tx) => addToOutbox(tx, BILLING_SCHEMA, makeEnvelope({ id: '00000000-0000-4000-8000-000000000006', workspace_id: WORKSPACE }))),
      relayBatch: async (em, orm) => {
        await addToOutbox(em, BILLING_SCHEMA, makeEnvelope({ id: '00000000-0000-4000-8000-000000000007', workspace_id: WORKSPACE }));
        return relay(orm).relayBatch();
      },
      lag: (_, orm) => relay(orm).lag(),
    }),
    moduleExamples('src/keyed-writes.sql', 'KeyedWrites (keyed-writes.ts)', {
      record: (_, orm) => keyedWrites(orm).record(claim, outcome),
      recordManyIn: (em, orm) => em.transactional((tx) => keyedWrites(orm).recordManyIn(sqlOf(tx, BILLING_SCHEMA), [{ claim, outcome }]).execute()),
      find: (_, orm) => keyedWrites(orm).find(WORKSPACE, claim.key),
      purgeExpired: (_, orm) => keyedWrites(orm).purgeExpired(),
    }),
    moduleExamples('src/database.sql', 'pingDatabase (database.ts)', { pingDatabase: (_, orm) => pingDatabase(orm) }),
  ],
};
