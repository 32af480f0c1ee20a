import { randomBytes } from 'node:crypto';
import '@invoicing/testing';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { DATABASE_CONNECT_TIMEOUT_MS, ensureDatabaseExists, openDatabase } from './database.ts';

const onServer = (database: string) => Object.assign(new URL(inject('databaseServerUrl')), { pathname: `/${database}` }).toString();

describe('ensureDatabaseExists', () => {
  it('lets services that start at once on a fresh server all find the database, whichever of them created it', async () => {
    const name = `fresh_${randomBytes(4).toString('hex')}`;
    const sut = () => ensureDatabaseExists(onServer(name));
    try {
      const outcomes = await Promise.allSettled(Array.from({ length: 8 }, sut));
      expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'ok'))).toEqual(Array(8).fill('ok'));
      await expect(sut()).resolves.toBeUndefined();
    } finally {
      const client = new pg.Client({ connectionString: onServer('postgres') });
      await client.connect();
      await client.query(`drop database if exists "${name}" with (force)`);
      await client.end();
    }
  });
});

describe('the connection pool', () => {
  it('queues a burst larger than the pool on a slow database instead of failing it after the connect timeout', async () => {
    const sut = await openDatabase({ url: onServer('postgres'), schema: 'public', entities: [], migrations: [], poolSize: 2 });
    try {
      // Six statements of 0.8 s on two connections: the last waits about 2 s for a free one.
      const started = performance.now();
      const outcomes = await Promise.allSettled(Array.from({ length: 6 }, () => sut.em.fork().execute('select pg_sleep(0.8)')));
      expect(outcomes.map((outcome) => (outcome.status === 'rejected' ? String(outcome.reason) : 'ok'))).toEqual(Array(6).fill('ok'));
      expect(performance.now() - started).toBeGreaterThan(DATABASE_CONNECT_TIMEOUT_MS);
    } finally {
      await sut.close(true);
    }
  });
});
