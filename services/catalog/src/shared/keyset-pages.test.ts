import type { Product } from '@invoicing/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, startCatalog, type Catalog, type WorkspaceClient } from '../../test/harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_pages');
});
afterAll(() => catalog.close());
afterEach(() => catalog.clock.release());

type Page = { data: { id: string; created: string }[]; next_cursor: string | null };

/** How each list endpoint gets a new row; prices hang off one product made up front. */
const resources: [string, (client: WorkspaceClient) => Promise<(n: number) => Promise<string>>][] = [
  ['customers', async (client) => async (n) => (await client.data<{ id: string }>(client.post('/api/v1/customers', { name: `c${n}` }))).id],
  ['products', async (client) => async (n) => (await client.data<{ id: string }>(client.post('/api/v1/products', { name: `p${n}` }))).id],
  [
    'prices',
    async (client) => {
      const product = await client.data<Product>(client.post('/api/v1/products', { name: 'parent' }));
      return async (n) =>
        (await client.data<{ id: string }>(client.post('/api/v1/prices', { product: product.id, unit_amount: n, currency: 'EUR' }))).id;
    },
  ],
];

describe('keyset pages', () => {
  it.each(resources)(
    '%s: rows sharing one created timestamp are each listed once, in order, while rows are added between pages',
    async (resource, makeCreator) => {
      const client = catalog.workspace();
      const create = await makeCreator(client);
      const sharedInstant = new Date('2026-03-01T12:00:00.000Z');

      catalog.clock.freeze(new Date('2026-03-01T11:00:00.000Z'));
      const older = [await create(0), await create(1)];
      catalog.clock.freeze(sharedInstant);
      const sameInstant: string[] = [];
      for (let n = 2; n < 25; n += 1) sameInstant.push(await create(n));
      const existing = [...sameInstant.toReversed(), ...older.toReversed()];

      const seen: string[] = [];
      let cursor: string | null = null;
      let added = 100;
      for (let page = 0; page < 20; page += 1) {
        const reply = await client.get(`/api/v1/${resource}?limit=4${cursor ? `&cursor=${cursor}` : ''}`);
        expect(reply.statusCode, reply.body).toBe(200);
        const body = reply.json<Page>();
        expect(body.data.length).toBeLessThanOrEqual(4);
        seen.push(...body.data.map((row) => row.id));
        cursor = body.next_cursor;
        if (!cursor) break;
        // New rows between pages: one at the very same instant, one later; both are newer than the cursor.
        catalog.clock.freeze(sharedInstant);
        await create(added++);
        catalog.clock.freeze(new Date('2026-03-01T13:00:00.000Z'));
        await create(added++);
      }

      expect(cursor).toBeNull();
      expect(seen).toEqual(existing);
    },
  );
});

describe('cursors', () => {
  /** A workspace with two rows in `resource`, and the cursor of its first one-row page. */
  const firstCursorOf = async (resource: string, makeCreator: (client: WorkspaceClient) => Promise<(n: number) => Promise<string>>) => {
    const client = catalog.workspace();
    const create = await makeCreator(client);
    await create(1);
    await create(2);
    const first = (await client.get(`/api/v1/${resource}?limit=1`)).json<Page>();
    expect(first.next_cursor).toEqual(expect.any(String));
    return { client, first, cursor: first.next_cursor! };
  };

  it.each(resources)('%s: a cursor is accepted only by the list and workspace that issued it', async (resource, makeCreator) => {
    const { client, cursor } = await firstCursorOf(resource, makeCreator);
    expect((await client.get(`/api/v1/${resource}?limit=1&cursor=${cursor}`)).statusCode).toBe(200);

    for (const [other] of resources.filter(([name]) => name !== resource)) {
      expectProblem(await client.get(`/api/v1/${other}?cursor=${cursor}`), 400, 'invalid_request', ['cursor']);
    }
    expectProblem(await catalog.workspace().get(`/api/v1/${resource}?cursor=${cursor}`), 400, 'invalid_request', ['cursor']);
  });

  it.each(resources)('%s: a cursor made by hand, or altered, is refused', async (resource, makeCreator) => {
    const { client, first, cursor } = await firstCursorOf(resource, makeCreator);
    const [{ id, created }] = first.data as [Page['data'][number]];
    const uuid = id.slice(id.indexOf('_') + 1).replace(/^(.{8})(.{4})(.{4})(.{4})/, '$1-$2-$3-$4-');
    // The issued cursor's own position, unsigned, as cursors once were.
    const handMade = Buffer.from(JSON.stringify([created, uuid])).toString('base64url');
    const [, tag] = cursor.split('.');
    const earlier = Buffer.from(JSON.stringify(['2000-01-01T00:00:00.000Z', uuid])).toString('base64url');
    for (const forged of [handMade, `${earlier}.${tag}`, `${handMade}.${'A'.repeat(tag!.length)}`, cursor.slice(0, -2)]) {
      expectProblem(await client.get(`/api/v1/${resource}?cursor=${forged}`), 400, 'invalid_request', ['cursor']);
    }
  });
});
