import { connect } from '@nats-io/transport-node';
import { createConnection } from 'node:net';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { createTestDatabase, natsUrl, redisUrl } from './index.ts';

describe('test harness', () => {
  it('gives each caller its own empty database on the run server', async () => {
    const first = await createTestDatabase('harness');
    const second = await createTestDatabase('harness');
    expect(first.url).not.toBe(second.url);
    const client = new pg.Client({ connectionString: first.url });
    await client.connect();
    const { rows } = await client.query<{ db: string }>('select current_database() as db');
    await client.end();
    expect(first.url.endsWith(`/${rows[0]?.db}`)).toBe(true);
    await Promise.all([first.drop(), second.drop()]);
  });

  it('provides a NATS server with JetStream', async () => {
    const nc = await connect({ servers: natsUrl() });
    const info = nc.info;
    await nc.close();
    expect(info?.jetstream).toBe(true);
  });

  it('provides a Redis server that answers', async () => {
    const { hostname, port } = new URL(redisUrl());
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = createConnection({ host: hostname, port: Number(port) }, () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.end();
        resolve(data.toString());
      });
      socket.once('error', reject);
    });
    expect(reply).toBe('+PONG\r\n');
  });
});
