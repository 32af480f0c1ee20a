import { randomBytes } from 'node:crypto';
import '@invoicing/testing';
import pg from 'pg';
import { describe, expect, inject, it } from 'vitest';
import { ensureDatabaseExists } from './database.ts';

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
