import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { Migration } from '@mikro-orm/migrations';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseConfig, port, serviceSettings } from './config.ts';
import { openDatabase } from './database.ts';
import type { EventBus } from './events/event-bus.ts';
import { createServiceApp } from './http-app.ts';
import { keyedWritesTableSql } from './keyed-writes.ts';
import { defineService } from './service-definition.ts';

const SCHEMA = 'definition_test';
const TOKEN = 'definition-test-internal-token-0123456789';

class CreateKeyedWrites extends Migration {
  override async up(): Promise<void> {
    for (const sql of keyedWritesTableSql(SCHEMA)) this.addSql(sql);
  }
}

const Settings = z.object({ PORT: port(0), ...serviceSettings });

/** A service with keyed writes and no events, as the catalog is. */
const sut = defineService({
  name: 'definition-test',
  loadConfig: (env) => parseConfig(Settings, env),
  database: {
    schema: SCHEMA,
    open: (url, poolSize) => openDatabase({ url, schema: SCHEMA, entities: [], migrations: [{ name: 'CreateKeyedWrites', class: CreateKeyedWrites }], poolSize }),
  },
  build: ({ config, orm, logger, checkReadiness }) => ({
    app: createServiceApp({ name: 'definition-test', logger, internalToken: config.INTERNAL_TOKEN, orm, checkReadiness, keyedWrites: { schema: SCHEMA, ttlHours: 24 } }),
  }),
});

/** A bus that is away: a service that uses no events must not notice. */
const unreachableBus: EventBus = {
  publish: async () => {
    throw new Error('no bus');
  },
  subscribe: async () => {
    throw new Error('no bus');
  },
  ping: async () => {
    throw new Error('NATS unreachable');
  },
  close: async () => {},
};

describe('defineService', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase('definition');
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('migrates with the database setting alone, asks no bus for readiness when the service uses no events, purges expired keyed writes from its start, and closes its pool with its app', async () => {
    await sut.migrate({ DATABASE_URL: database.url });
    const config = sut.loadConfig({ DATABASE_URL: database.url, INTERNAL_TOKEN: TOKEN, DATABASE_POOL_SIZE: '2', LOG_LEVEL: 'silent' });
    const service = await sut.create(config, { bus: unreachableBus });
    const sql = service.orm.em.getConnection();
    await sql.execute(
      `insert into ${SCHEMA}.idempotency_records (workspace_id, key, fingerprint, response_status, response_content_type, response_body, created_at)
       values ('w', 'expired', 'f', 200, 'application/json', '{}', now() - interval '25 hours'), ('w', 'live', 'f', 200, 'application/json', '{}', now())`,
    );

    await service.start();
    expect((await service.app.inject({ url: '/readyz' })).statusCode).toBe(200);
    await expect.poll(async () => (await sql.execute<{ key: string }[]>(`select key from ${SCHEMA}.idempotency_records`)).map((row) => row.key), { timeout: 5_000 }).toEqual(['live']);

    await service.stop();
    expect(await service.orm.isConnected()).toBe(false);
  });
});
