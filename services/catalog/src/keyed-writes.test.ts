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

describe('keyed catalog writes in a burst larger than the database pool', () => {
  let catalog: Catalog;

  beforeAll(async () => {
    catalog = await startCatalog('catalog_keyed_burst', 2);
  });
  afterAll(async () => {
    await catalog?.close();
  });

  it('all commit: the rows a write reads come through its own transaction, never a second connection', async () => {
    const client = catalog.workspace();
    const headers = (key: string) => ({ ...gatewayHeaders(client.workspaceId), 'x-idempotency-key': key });
    const product = (await catalog.app.inject({ method: 'POST', url: '/api/v1/products', headers: headers(randomUUID()), payload: { name: 'Workshop' } })).json().data;
    const customer = (await catalog.app.inject({ method: 'POST', url: '/api/v1/customers', headers: headers(randomUUID()), payload: { name: 'Ada' } })).json().data;
    const started = performance.now();
    const replies = await Promise.all([
      ...Array.from({ length: 4 }, () => catalog.app.inject({ method: 'POST', url: '/api/v1/prices', headers: headers(randomUUID()), payload: { product: product.id, unit_amount: 1_000, currency: 'EUR' } })),
      ...Array.from({ length: 4 }, (_, index) => catalog.app.inject({ method: 'PATCH', url: `/api/v1/customers/${customer.id}`, headers: headers(randomUUID()), payload: { name: `Ada ${index}` } })),
    ]);
    expect(replies.map((reply) => reply.statusCode)).toEqual([201, 201, 201, 201, 200, 200, 200, 200]);
    // A deadlock on the pool would end only with its 10 s wait for a connection (a 503).
    expect(performance.now() - started).toBeLessThan(8_000);
  });
});
