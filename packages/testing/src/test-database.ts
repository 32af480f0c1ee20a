import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import './provided-context.ts';

export interface TestDatabase {
  url: string;
  drop: () => Promise<void>;
}

const serverUrlWith = (database: string): string => {
  const url = new URL(inject('databaseServerUrl'));
  url.pathname = `/${database}`;
  return url.toString();
};

const onMaintenance = async (sql: string): Promise<void> => {
  const client = new pg.Client({ connectionString: serverUrlWith('postgres') });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
};

/** A new, empty database on the run's PostgreSQL server, so test files never see each other's rows. */
export const createTestDatabase = async (label = 'test'): Promise<TestDatabase> => {
  const name = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${randomBytes(4).toString('hex')}`;
  await onMaintenance(`create database "${name}"`);
  return {
    url: serverUrlWith(name),
    drop: () => onMaintenance(`drop database if exists "${name}" with (force)`),
  };
};

export const natsUrl = (): string => inject('natsUrl');

export const redisUrl = (): string => inject('redisUrl');
