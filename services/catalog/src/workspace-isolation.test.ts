import type { Customer, Price, Product } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, listAll, startCatalog, type Catalog, type WorkspaceClient } from '../test/harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_isolation');
});
afterAll(() => catalog.close());

/** One customer, product and price in the client's workspace, all named after `tag`. */
const seed = async (client: WorkspaceClient, tag: string) => {
  const customer = await client.data<Customer>(client.post('/api/v1/customers', { name: `${tag} customer`, email: `${tag}@shared.example` }));
  const product = await client.data<Product>(client.post('/api/v1/products', { name: `${tag} product` }));
  const price = await client.data<Price>(client.post('/api/v1/prices', { product: product.id, unit_amount: 100, currency: 'EUR' }));
  return { customer, product, price };
};

const ids = async (client: WorkspaceClient, path: string) => (await listAll<{ id: string }>(client, path)).map((row) => row.id);

describe('workspace isolation', () => {
  it("answers 404 to another workspace's IDs on every route, and changes nothing", async () => {
    const a = catalog.workspace();
    const b = catalog.workspace();
    const owned = await seed(a, 'alpha');

    for (const [path, id] of [
      ['/api/v1/customers', owned.customer.id],
      ['/api/v1/products', owned.product.id],
      ['/api/v1/prices', owned.price.id],
    ] as const) {
      expectProblem(await b.get(`${path}/${id}`), 404, 'not_found');
      expectProblem(await b.patch(`${path}/${id}`, {}), 404, 'not_found');
      expectProblem(await b.delete(`${path}/${id}`), 404, 'not_found');
    }
    expectProblem(await b.post('/api/v1/prices', { product: owned.product.id, unit_amount: 1, currency: 'EUR' }), 404, 'not_found');

    expect(await a.data(a.get(`/api/v1/customers/${owned.customer.id}`))).toEqual(owned.customer);
    expect(await a.data(a.get(`/api/v1/products/${owned.product.id}`))).toEqual(owned.product);
    expect(await a.data(a.get(`/api/v1/prices/${owned.price.id}`))).toEqual(owned.price);
  });

  it("never shows another workspace's rows in lists, searches or filters", async () => {
    const a = catalog.workspace();
    const b = catalog.workspace();
    const ofA = await seed(a, 'alpha');
    const ofB = await seed(b, 'bravo');

    expect(await ids(b, '/api/v1/customers?include_deleted=true')).toEqual([ofB.customer.id]);
    expect(await ids(b, '/api/v1/customers?q=shared.example')).toEqual([ofB.customer.id]);
    expect(await ids(b, '/api/v1/customers?q=alpha')).toEqual([]);
    expect(await ids(b, '/api/v1/products')).toEqual([ofB.product.id]);
    expect(await ids(b, '/api/v1/products?q=product')).toEqual([ofB.product.id]);
    expect(await ids(b, '/api/v1/prices')).toEqual([ofB.price.id]);
    expect(await ids(b, `/api/v1/prices?product=${ofA.product.id}`)).toEqual([]);
    expect(await ids(a, '/api/v1/prices?currency=EUR')).toEqual([ofA.price.id]);
  });

  it('keeps workspaces apart under concurrent requests', async () => {
    const clients = [catalog.workspace(), catalog.workspace(), catalog.workspace()];
    const perClient = 8;

    const created = await Promise.all(
      clients.flatMap((client, c) =>
        Array.from({ length: perClient }, async (_, i) => {
          const customer = await client.data<Customer>(client.post('/api/v1/customers', { name: `ws${c} customer ${i}` }));
          const others = clients.filter((other) => other !== client);
          const [own, ...foreign] = await Promise.all([
            client.get(`/api/v1/customers/${customer.id}`),
            ...others.map((other) => other.get(`/api/v1/customers/${customer.id}`)),
          ]);
          expect(own?.statusCode).toBe(200);
          for (const reply of foreign) expectProblem(reply, 404, 'not_found');
          return { client: c, id: customer.id };
        }),
      ),
    );

    const lists = await Promise.all(clients.map((client) => ids(client, '/api/v1/customers')));
    lists.forEach((list, c) => {
      const expected = created.filter((row) => row.client === c).map((row) => row.id);
      expect(list.toSorted()).toEqual(expected.toSorted());
    });
  });
});
