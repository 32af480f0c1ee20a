import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayHeaders, startCatalog, type Catalog } from '../test/harness.ts';

/** Creates, updates and deletes repeated under one Idempotency-Key, as the gateway forwards them after losing an answer. */
describe('catalog writes under an Idempotency-Key', () => {
  let catalog: Catalog;

  beforeAll(async () => {
    catalog = await startCatalog('catalog_keyed');
  });
  afterAll(async () => {
    await catalog?.close();
  });

  const keyedPost = (workspaceId: string, url: string, body: unknown, key: string) =>
    catalog.app.inject({ method: 'POST', url, headers: { ...gatewayHeaders(workspaceId), 'x-idempotency-key': key }, payload: body as object });

  it('ten copies of one customer create arriving at once make one customer, and all answer it', async () => {
    const client = catalog.workspace();
    const key = randomUUID();
    const replies = await Promise.all(Array.from({ length: 10 }, () => keyedPost(client.workspaceId, '/api/v1/customers', { name: 'Ada Lovelace' }, key)));

    expect(replies.map((reply) => reply.statusCode)).toEqual(Array(10).fill(201));
    expect(new Set(replies.map((reply) => reply.json().data.id)).size).toBe(1);
    const list = (await client.get('/api/v1/customers')).json().data;
    expect(list).toHaveLength(1);
  });

  it('a repeated product create answers the first body byte for byte', async () => {
    const client = catalog.workspace();
    const key = randomUUID();
    const first = await keyedPost(client.workspaceId, '/api/v1/products', { name: 'Consulting hour' }, key);
    const repeat = await keyedPost(client.workspaceId, '/api/v1/products', { name: 'Consulting hour' }, key);

    expect(repeat.statusCode).toBe(201);
    expect(repeat.body).toBe(first.body);
    expect(repeat.headers['idempotent-replayed']).toBe('true');
    expect((await client.get('/api/v1/products')).json().data).toHaveLength(1);
  });
});
