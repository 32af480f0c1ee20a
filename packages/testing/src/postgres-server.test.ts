import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmbeddedPostgresProcess } from './postgres-server.ts';

const query = async (url: string, sql: string) => {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2_000 });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
};

describe('an embedded PostgreSQL of a test of its own', () => {
  let postgres: EmbeddedPostgresProcess;
  beforeAll(async () => {
    postgres = await EmbeddedPostgresProcess.launch();
  });
  afterAll(async () => {
    await postgres?.dispose();
  });

  it('stops (ending open connections) and starts again on the same port with its data', async () => {
    await query(postgres.url, 'create table kept (value text); insert into kept values ($$before the stop$$)');
    const held = new pg.Client({ connectionString: postgres.url });
    const ended = new Promise<Error>((resolve) => held.on('error', resolve));
    await held.connect();

    await postgres.stop();
    await expect(query(postgres.url, 'select 1')).rejects.toThrow();
    expect((await ended).message).toMatch(/terminat|shut|Connection/i);

    await postgres.start();
    expect(await query(postgres.url, 'select value from kept')).toEqual([{ value: 'before the stop' }]);
  });
});
