import { parsePublicId, type Product } from '@invoicing/contracts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, listAll, startCatalog, type Catalog, type WorkspaceClient } from '../../../test/harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_products');
});
afterAll(() => catalog.close());
afterEach(() => catalog.clock.release());

const createProduct = (client: WorkspaceClient, body: Record<string, unknown>) =>
  client.data<Product>(client.post('/api/v1/products', body));

const at = (iso: string) => new Date(iso);

describe('products', () => {
  it('creates an active product with no description and no images by default', async () => {
    const client = catalog.workspace();
    const reply = await client.post('/api/v1/products', { name: 'Consulting hour' });

    expect(reply.statusCode).toBe(201);
    const product = reply.json<{ data: Product }>().data;
    expect(product).toEqual({
      id: expect.stringMatching(/^prod_[0-9a-f]{32}$/),
      object: 'product',
      livemode: true,
      name: 'Consulting hour',
      description: null,
      images: [],
      active: true,
      metadata: {},
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated: product.created,
    });
    expect(await client.data(client.get(`/api/v1/products/${product.id}`))).toEqual(product);
  });

  it('keeps description, images and active as sent, and a name of exactly 200 characters', async () => {
    const client = catalog.workspace();
    const images = Array.from({ length: 8 }, (_, i) => `https://cdn.example.com/p/${i}.png`);
    const product = await createProduct(client, { name: 'n'.repeat(200), description: 'd'.repeat(500), images, active: false });
    expect(product).toMatchObject({ name: 'n'.repeat(200), description: 'd'.repeat(500), images, active: false });
  });

  it('updates the fields sent and moves `updated`; null or "" clears the description; images are replaced whole', async () => {
    const client = catalog.workspace();
    catalog.clock.freeze(at('2026-01-01T10:00:00.000Z'));
    const created = await createProduct(client, {
      name: 'Widget',
      description: 'A widget',
      images: ['https://cdn.example.com/a.png', 'https://cdn.example.com/b.png'],
    });

    catalog.clock.freeze(at('2026-01-02T10:00:00.000Z'));
    const renamed = await client.data<Product>(
      client.patch(`/api/v1/products/${created.id}`, { name: 'Widget Pro', images: ['https://cdn.example.com/c.png'] }),
    );
    expect(renamed).toEqual({
      ...created,
      name: 'Widget Pro',
      images: ['https://cdn.example.com/c.png'],
      updated: '2026-01-02T10:00:00.000Z',
    });

    const cleared = await client.data<Product>(client.patch(`/api/v1/products/${created.id}`, { description: '', images: [] }));
    expect(cleared).toMatchObject({ description: null, images: [] });
    await client.data(client.patch(`/api/v1/products/${created.id}`, { description: 'again' }));
    expect(await client.data(client.patch(`/api/v1/products/${created.id}`, { description: null }))).toMatchObject({ description: null });

    catalog.clock.freeze(at('2026-01-03T10:00:00.000Z'));
    const unchanged = await client.data<Product>(client.patch(`/api/v1/products/${created.id}`, { name: 'Widget Pro' }));
    expect(unchanged.updated).toBe('2026-01-02T10:00:00.000Z');
  });

  it('stores an empty or blank description as null, on create and on update, and trims one that is kept', async () => {
    const client = catalog.workspace();
    const blank = await createProduct(client, { name: 'Blank', description: '   ' });
    expect(blank.description).toBeNull();
    const kept = await createProduct(client, { name: 'Kept', description: '  Hourly work\n' });
    expect(kept.description).toBe('Hourly work');
    expect(await client.data(client.patch(`/api/v1/products/${kept.id}`, { description: '\t ' }))).toMatchObject({ description: null });

    const rows = await catalog.orm.em
      .getConnection()
      .execute<{ description: unknown }[]>('select description from catalog.products where id in (?, ?)', [
        parsePublicId('product', blank.id),
        parsePublicId('product', kept.id),
      ]);
    expect(rows).toEqual([{ description: null }, { description: null }]);
  });

  it('archives with DELETE (200, active false, still retrievable) and reactivates with PATCH active true', async () => {
    const client = catalog.workspace();
    const product = await createProduct(client, { name: 'Seasonal' });

    const reply = await client.delete(`/api/v1/products/${product.id}`);
    expect(reply.statusCode).toBe(200);
    expect(reply.json<{ data: Product }>().data).toMatchObject({ id: product.id, active: false });
    expect(await client.data(client.get(`/api/v1/products/${product.id}`))).toMatchObject({ active: false });
    expect(await client.data(client.delete(`/api/v1/products/${product.id}`))).toMatchObject({ active: false });

    expect(await client.data(client.patch(`/api/v1/products/${product.id}`, { active: true }))).toMatchObject({ active: true });
    expect(await client.data(client.patch(`/api/v1/products/${product.id}`, { active: false }))).toMatchObject({ active: false });
  });

  it('filters by active: true for active only, false for archived only, omitted for both', async () => {
    const client = catalog.workspace();
    const active = await createProduct(client, { name: 'Active' });
    const archived = await createProduct(client, { name: 'Archived', active: false });

    const ids = async (query: string) => (await listAll<Product>(client, `/api/v1/products${query}`)).map((p) => p.id);
    expect(await ids('?active=true')).toEqual([active.id]);
    expect(await ids('?active=false')).toEqual([archived.id]);
    expect(await ids('')).toEqual([archived.id, active.id]);
  });

  it('searches names and descriptions, partially and case-insensitively, combined with the active filter', async () => {
    const client = catalog.workspace();
    const byName = await createProduct(client, { name: 'Espresso Machine' });
    const byDescription = await createProduct(client, { name: 'Grinder', description: 'Pairs with any espresso maker' });
    const archived = await createProduct(client, { name: 'Old ESPRESSO cups', active: false });
    await createProduct(client, { name: 'Tea pot', description: 'For tea' });

    const ids = async (query: string) => (await listAll<Product>(client, `/api/v1/products?${query}`)).map((p) => p.id);
    expect(await ids('q=spress')).toEqual([archived.id, byDescription.id, byName.id]);
    expect(await ids('q=spress&active=true')).toEqual([byDescription.id, byName.id]);
    expect(await ids('q=MAKER')).toEqual([byDescription.id]);
    expect(await ids('q=coffee')).toEqual([]);
  });

  it.each([
    ['malformed', 'prod_123'],
    ['another resource prefix', 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887'],
    ['unknown', 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887'],
  ])('answers 404 for a %s ID on GET, PATCH and DELETE', async (_, id) => {
    const client = catalog.workspace();
    expectProblem(await client.get(`/api/v1/products/${id}`), 404, 'not_found');
    expectProblem(await client.patch(`/api/v1/products/${id}`, { name: 'x' }), 404, 'not_found');
    expectProblem(await client.delete(`/api/v1/products/${id}`), 404, 'not_found');
  });
});

const tooManyImages = Array.from({ length: 9 }, (_, i) => `https://cdn.example.com/${i}.png`);

describe('product validation', () => {
  it.each([
    ['no name', { description: 'x' }, ['name']],
    ['an empty name', { name: '' }, ['name']],
    ['a name of 201 characters', { name: 'n'.repeat(201) }, ['name']],
    ['a description of 501 characters', { name: 'A', description: 'd'.repeat(501) }, ['description']],
    ['9 images', { name: 'A', images: tooManyImages }, ['images']],
    ['an http image', { name: 'A', images: ['http://cdn.example.com/a.png'] }, ['images.0']],
    ['an image on localhost', { name: 'A', images: ['https://localhost/a.png'] }, ['images.0']],
    ['an image on an IP address', { name: 'A', images: ['https://10.0.0.1/a.png'] }, ['images.0']],
    ['an image that is not a URL', { name: 'A', images: ['https://cdn.example.com/a.png', 'picture.png'] }, ['images.1']],
    ['images that are not an array', { name: 'A', images: 'https://cdn.example.com/a.png' }, ['images']],
    ['active that is not a boolean', { name: 'A', active: 'yes' }, ['active']],
    ['an unknown field', { name: 'A', price: 100 }, ['price']],
  ])('refuses a create with %s (400) and creates nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    expectProblem(await client.post('/api/v1/products', body), 400, 'invalid_request', paths);
    expect(await listAll(client, '/api/v1/products')).toEqual([]);
  });

  it.each([
    ['an empty name', { name: '' }, ['name']],
    ['a name of 201 characters', { name: 'n'.repeat(201) }, ['name']],
    ['a description of 501 characters', { description: 'd'.repeat(501) }, ['description']],
    ['9 images', { images: tooManyImages }, ['images']],
    ['an http image', { images: ['http://cdn.example.com/a.png'] }, ['images.0']],
    ['active null', { active: null }, ['active']],
    ['an unknown field', { updated: '2026-01-01T00:00:00.000Z' }, ['updated']],
  ])('refuses an update with %s (400) and changes nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    const before = await createProduct(client, { name: 'Before', description: 'kept', images: ['https://cdn.example.com/x.png'] });
    expectProblem(await client.patch(`/api/v1/products/${before.id}`, body), 400, 'invalid_request', paths);
    expect(await client.data(client.get(`/api/v1/products/${before.id}`))).toEqual(before);
  });

  it.each([
    ['active=1', ['active']],
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['cursor=%00%01', ['cursor']],
  ])('refuses a list with %s (400)', async (query, paths) => {
    expectProblem(await catalog.workspace().get(`/api/v1/products?${query}`), 400, 'invalid_request', paths);
  });
});
