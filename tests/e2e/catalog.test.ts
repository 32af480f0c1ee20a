import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog'] });
});

afterAll(async () => {
  await system?.stop();
});

/** Follows `next_cursor` from the first page to the last, returning every page's ids. */
const pageThrough = async (fetchPage: (cursor: string | undefined) => Promise<{ data: { id: string }[]; next_cursor: string | null }>) => {
  const pages: string[][] = [];
  let cursor: string | undefined;
  do {
    const page = await fetchPage(cursor);
    pages.push(page.data.map((item) => item.id));
    cursor = page.next_cursor ?? undefined;
  } while (cursor && pages.length < 50);
  return pages;
};

const createCustomers = async (api: ApiClient, names: readonly string[]): Promise<string[]> => {
  const ids: string[] = [];
  // One after another, so "newest first" has a known answer.
  for (const name of names) {
    const { data } = await api.POST('/api/v1/customers', { body: { name, email: `${name.split(' ')[0]!.toLowerCase()}@example.com` } });
    ids.push(data!.data.id);
  }
  return ids;
};

describe('catalog through the gateway, with keys minted by the operator command', () => {
  it('creates, searches, pages through, updates and archives customers', async () => {
    const { key } = await system.mintKey('customers-co', 'all');
    const api = system.client(key);
    const ids = await createCustomers(api, ['Alpha Bau GmbH', 'Beta Ltd', 'Gamma ALPHAWERK AG', 'Delta SA', 'Epsilon Oy']);

    const search = await api.GET('/api/v1/customers', { params: { query: { q: 'alph' } } });
    expect(search.data?.data.map((customer) => customer.name)).toEqual(['Gamma ALPHAWERK AG', 'Alpha Bau GmbH']);

    const pages = await pageThrough(async (cursor) => (await api.GET('/api/v1/customers', { params: { query: { limit: 2, cursor } } })).data!);
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual([...ids].reverse());

    const alpha = ids[0]!;
    const updated = await api.PATCH('/api/v1/customers/{id}', {
      params: { path: { id: alpha } },
      body: { email: '', address: { city: 'Köln', country: 'de' } },
    });
    expect(updated.data?.data).toMatchObject({ name: 'Alpha Bau GmbH', email: null, address: { city: 'Köln', country: 'DE', line1: null } });
    const merged = await api.PATCH('/api/v1/customers/{id}', { params: { path: { id: alpha } }, body: { address: { line1: 'Domstraße 1' } } });
    expect(merged.data?.data.address).toMatchObject({ line1: 'Domstraße 1', city: 'Köln', country: 'DE' });

    const archived = await api.DELETE('/api/v1/customers/{id}', { params: { path: { id: alpha } } });
    expect(archived.response.status).toBe(200);
    expect(archived.data?.data).toMatchObject({ id: alpha, deleted: true });
    const visible = await api.GET('/api/v1/customers', { params: { query: { limit: 100 } } });
    expect(visible.data?.data.map((customer) => customer.id)).not.toContain(alpha);
    const withArchived = await api.GET('/api/v1/customers', { params: { query: { limit: 100, include_deleted: true } } });
    expect(withArchived.data?.data.map((customer) => customer.id)).toContain(alpha);
    const retrieved = await api.GET('/api/v1/customers/{id}', { params: { path: { id: alpha } } });
    expect(retrieved.data?.data).toMatchObject({ id: alpha, deleted: true, address: { line1: 'Domstraße 1' } });
  });

  it('creates, searches, pages through, updates and archives products and their prices', async () => {
    const { key } = await system.mintKey('products-co', 'products:read,products:write');
    const api = system.client(key);
    const productIds: string[] = [];
    for (const name of ['Consulting hour', 'Design workshop', 'Support plan', 'Consulting day']) {
      const created = await api.POST('/api/v1/products', { body: { name, description: `${name}, on site` } });
      expect(created.response.status).toBe(201);
      productIds.push(created.data!.data.id);
    }
    const [hour, , , day] = productIds as [string, string, string, string];

    const search = await api.GET('/api/v1/products', { params: { query: { q: 'CONSULT' } } });
    expect(search.data?.data.map((product) => product.id)).toEqual([day, hour]);
    const pages = await pageThrough(async (cursor) => (await api.GET('/api/v1/products', { params: { query: { limit: 3, cursor } } })).data!);
    expect(pages.flat()).toEqual([...productIds].reverse());

    const renamed = await api.PATCH('/api/v1/products/{id}', { params: { path: { id: hour } }, body: { name: 'Consulting hour (remote)', description: '' } });
    expect(renamed.data?.data).toMatchObject({ name: 'Consulting hour (remote)', description: null, active: true });

    const priceIds: string[] = [];
    for (const [unit_amount, currency] of [[15000, 'eur'], [16000, 'USD'], [9000, 'EUR']] as const) {
      const created = await api.POST('/api/v1/prices', { body: { product: hour, unit_amount, currency, tax_rate: 19 } });
      expect(created.response.status).toBe(201);
      expect(created.data?.data).toMatchObject({ product: hour, unit_amount, currency: currency.toUpperCase(), type: 'one_time', recurring: null, active: true });
      priceIds.push(created.data!.data.id);
    }
    const monthly = await api.POST('/api/v1/prices', {
      body: { product: day, unit_amount: 99000, currency: 'EUR', type: 'recurring', recurring: { interval: 'month' } },
    });
    expect(monthly.data?.data.recurring).toEqual({ interval: 'month', interval_count: 1 });

    const pricePages = await pageThrough(async (cursor) =>
      (await api.GET('/api/v1/prices', { params: { query: { product: hour, limit: 2, cursor } } })).data!,
    );
    expect(pricePages.flat()).toEqual([...priceIds].reverse());
    const euros = await api.GET('/api/v1/prices', { params: { query: { product: hour, currency: 'eur' } } });
    expect(euros.data?.data.map((price) => price.id)).toEqual([priceIds[2], priceIds[0]]);

    const nicknamed = await api.PATCH('/api/v1/prices/{id}', { params: { path: { id: priceIds[0]! } }, body: { nickname: 'Standard rate' } });
    expect(nicknamed.data?.data).toMatchObject({ nickname: 'Standard rate', unit_amount: 15000 });

    const archivedPrice = await api.DELETE('/api/v1/prices/{id}', { params: { path: { id: priceIds[1]! } } });
    expect(archivedPrice.data?.data).toMatchObject({ id: priceIds[1], active: false });
    const activePrices = await api.GET('/api/v1/prices', { params: { query: { product: hour, active: true } } });
    expect(activePrices.data?.data.map((price) => price.id)).toEqual([priceIds[2], priceIds[0]]);

    const archivedProduct = await api.DELETE('/api/v1/products/{id}', { params: { path: { id: hour } } });
    expect(archivedProduct.data?.data).toMatchObject({ id: hour, active: false });
    const activeProducts = await api.GET('/api/v1/products', { params: { query: { active: true } } });
    expect(activeProducts.data?.data.map((product) => product.id)).not.toContain(hour);
    const archivedProducts = await api.GET('/api/v1/products', { params: { query: { active: false } } });
    expect(archivedProducts.data?.data.map((product) => product.id)).toEqual([hour]);
  });
});

describe('authentication and workspaces through the gateway', () => {
  it('answers 401 without a key and with a made-up one', async () => {
    expectProblem(await system.client().GET('/api/v1/customers'), 401, 'unauthenticated');
    const forged = `inv_live_${'A'.repeat(65)}`;
    expectProblem(await system.client(forged).GET('/api/v1/customers'), 401, 'unauthenticated');
  });

  it('answers 403 to a key without the scope, and changes nothing', async () => {
    const reader = system.client((await system.mintKey('scoped-co', 'clients:read')).key);
    const refused = await reader.POST('/api/v1/customers', { body: { name: 'Should not exist' } });
    expectProblem(refused, 403, 'forbidden');
    expectProblem(await reader.GET('/api/v1/products'), 403, 'forbidden');

    const listed = await reader.GET('/api/v1/customers');
    expect(listed.response.status).toBe(200);
    expect(listed.data?.data).toEqual([]);
  });

  it("answers 404 to a key of another workspace, for every customer, product and price route", async () => {
    const owner = system.client((await system.mintKey('owner-co', 'all')).key);
    const stranger = system.client((await system.mintKey('stranger-co', 'all')).key);
    const customer = (await owner.POST('/api/v1/customers', { body: { name: 'Private customer' } })).data!.data;
    const product = (await owner.POST('/api/v1/products', { body: { name: 'Private product' } })).data!.data;
    const price = (await owner.POST('/api/v1/prices', { body: { product: product.id, unit_amount: 100, currency: 'EUR' } })).data!.data;

    const customerPath = { params: { path: { id: customer.id } } };
    expectProblem(await stranger.GET('/api/v1/customers/{id}', customerPath), 404, 'not_found');
    expectProblem(await stranger.PATCH('/api/v1/customers/{id}', { ...customerPath, body: { name: 'Taken over' } }), 404, 'not_found');
    expectProblem(await stranger.DELETE('/api/v1/customers/{id}', customerPath), 404, 'not_found');
    expectProblem(await stranger.GET('/api/v1/products/{id}', { params: { path: { id: product.id } } }), 404, 'not_found');
    expectProblem(await stranger.GET('/api/v1/prices/{id}', { params: { path: { id: price.id } } }), 404, 'not_found');
    expectProblem(await stranger.POST('/api/v1/prices', { body: { product: product.id, unit_amount: 1, currency: 'EUR' } }), 404, 'not_found');
    expect((await stranger.GET('/api/v1/customers')).data?.data).toEqual([]);
    expect((await stranger.GET('/api/v1/prices', { params: { query: { product: product.id } } })).data?.data).toEqual([]);

    const untouched = await owner.GET('/api/v1/customers/{id}', customerPath);
    expect(untouched.data?.data).toMatchObject({ name: 'Private customer', deleted: false });
  });
});

describe('idempotency through the gateway', () => {
  it('creates exactly one customer from twenty concurrent POSTs with one Idempotency-Key', async () => {
    const api = system.client((await system.mintKey('idempotent-co', 'all')).key);
    const idempotencyKey = randomUUID();
    const attempts = await Promise.all(
      Array.from({ length: 20 }, () =>
        api.POST('/api/v1/customers', {
          params: { header: { 'Idempotency-Key': idempotencyKey } },
          body: { name: 'Exactly Once GmbH', email: 'once@example.com' },
        }),
      ),
    );

    const created = attempts.filter((attempt) => attempt.response.status === 201);
    const original = created.filter((attempt) => attempt.response.headers.get('idempotent-replayed') !== 'true');
    const replays = created.filter((attempt) => attempt.response.headers.get('idempotent-replayed') === 'true');
    const inUse = attempts.filter((attempt) => attempt.response.status === 409);
    expect(original).toHaveLength(1);
    expect(replays.length + inUse.length).toBe(19);
    const id = original[0]!.data!.data.id;
    for (const replay of replays) expect(replay.data?.data.id).toBe(id);
    for (const conflict of inUse) expectProblem(conflict, 409, 'idempotency_key_in_use');

    const listed = await api.GET('/api/v1/customers');
    expect(listed.data?.data.map((customer) => customer.id)).toEqual([id]);

    const later = await api.POST('/api/v1/customers', {
      params: { header: { 'Idempotency-Key': idempotencyKey } },
      body: { name: 'Exactly Once GmbH', email: 'once@example.com' },
    });
    expect(later.response.headers.get('idempotent-replayed')).toBe('true');
    expect(later.data?.data.id).toBe(id);
    const otherBody = await api.POST('/api/v1/customers', {
      params: { header: { 'Idempotency-Key': idempotencyKey } },
      body: { name: 'Someone Else' },
    });
    expectProblem(otherBody, 409, 'idempotency_key_reused');
  });
});
