import { parsePublicId, type Price, type Product } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, listAll, startCatalog, type Catalog, type WorkspaceClient } from '../../../test/harness.ts';

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_prices');
});
afterAll(() => catalog.close());

const UNKNOWN_PRODUCT = 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887';

const newProduct = (client: WorkspaceClient, name = 'Plan') => client.data<Product>(client.post('/api/v1/products', { name }));
const createPrice = (client: WorkspaceClient, body: Record<string, unknown>) =>
  client.data<Price>(client.post('/api/v1/prices', body));

/** A workspace with one product and one monthly recurring price of it. */
const withRecurringPrice = async () => {
  const client = catalog.workspace();
  const product = await newProduct(client);
  const price = await createPrice(client, {
    product: product.id,
    unit_amount: 1500,
    currency: 'EUR',
    type: 'recurring',
    recurring: { interval: 'month', interval_count: 3 },
    tax_rate: 19,
    nickname: 'Quarterly',
  });
  return { client, product, price };
};

describe('prices', () => {
  it('creates a one-time price with the defaults: per_unit, no schedule, tax rate 0, active, currency uppercased', async () => {
    const client = catalog.workspace();
    const product = await newProduct(client);
    const reply = await client.post('/api/v1/prices', { product: product.id, unit_amount: 0, currency: 'usd' });

    expect(reply.statusCode).toBe(201);
    const price = reply.json<{ data: Price }>().data;
    expect(price).toEqual({
      id: expect.stringMatching(/^price_[0-9a-f]{32}$/),
      object: 'price',
      livemode: true,
      product: product.id,
      nickname: null,
      unit_amount: 0,
      currency: 'USD',
      billing_scheme: 'per_unit',
      type: 'one_time',
      recurring: null,
      tax_rate: 0,
      active: true,
      metadata: {},
      created: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
    });
    expect(await client.data(client.get(`/api/v1/prices/${price.id}`))).toEqual(price);
  });

  it('creates a recurring price, interval_count 1 by default, with a fractional tax rate returned as a number', async () => {
    const client = catalog.workspace();
    const product = await newProduct(client);
    const hex = product.id.slice('prod_'.length);
    const dashed = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    const price = await createPrice(client, {
      product: dashed,
      unit_amount: Number.MAX_SAFE_INTEGER,
      currency: 'jpy',
      type: 'recurring',
      recurring: { interval: 'year' },
      tax_rate: 8.5,
      nickname: 'Yearly',
    });
    expect(price).toMatchObject({
      product: product.id,
      unit_amount: Number.MAX_SAFE_INTEGER,
      currency: 'JPY',
      type: 'recurring',
      recurring: { interval: 'year', interval_count: 1 },
      tax_rate: 8.5,
      nickname: 'Yearly',
    });
    expect(await client.data(client.get(`/api/v1/prices/${price.id}`))).toEqual(price);
  });

  it('creates prices on archived products too, and at the limits: interval_count 52, tax rate 100 and 12.3456', async () => {
    const client = catalog.workspace();
    const product = await newProduct(client);
    await client.delete(`/api/v1/products/${product.id}`);
    const weekly = await createPrice(client, {
      product: product.id, unit_amount: 1, currency: 'EUR', type: 'recurring', recurring: { interval: 'week', interval_count: 52 }, tax_rate: 100,
    });
    expect(weekly).toMatchObject({ recurring: { interval: 'week', interval_count: 52 }, tax_rate: 100 });
    expect(await createPrice(client, { product: product.id, unit_amount: 1, currency: 'EUR', tax_rate: 12.3456 })).toMatchObject({ tax_rate: 12.3456 });
  });

  it('updates the fields sent; nickname null or "" clears it; the product stays', async () => {
    const { client, price } = await withRecurringPrice();
    const updated = await client.data<Price>(
      client.patch(`/api/v1/prices/${price.id}`, { unit_amount: 1800, currency: 'gbp', tax_rate: 20, nickname: '' }),
    );
    expect(updated).toEqual({ ...price, unit_amount: 1800, currency: 'GBP', tax_rate: 20, nickname: null });

    await client.data(client.patch(`/api/v1/prices/${price.id}`, { nickname: 'Named' }));
    expect(await client.data(client.patch(`/api/v1/prices/${price.id}`, { nickname: null }))).toMatchObject({ nickname: null });
    expect(await client.data(client.get(`/api/v1/prices/${price.id}`))).toMatchObject({ product: price.product, unit_amount: 1800 });
  });

  it('stores an empty or blank nickname as null, on create and on update, and trims one that is kept', async () => {
    const { client, product, price } = await withRecurringPrice();
    const blank = await createPrice(client, { product: product.id, unit_amount: 100, currency: 'EUR', nickname: '  ' });
    expect(blank.nickname).toBeNull();
    expect(await client.data(client.patch(`/api/v1/prices/${price.id}`, { nickname: ' Yearly ' }))).toMatchObject({ nickname: 'Yearly' });
    expect(await client.data(client.patch(`/api/v1/prices/${price.id}`, { nickname: ' ' }))).toMatchObject({ nickname: null });

    const rows = await catalog.orm.em
      .getConnection()
      .execute<{ nickname: unknown }[]>('select nickname from catalog.prices where id in (?, ?)', [parsePublicId('price', blank.id), parsePublicId('price', price.id)]);
    expect(rows).toEqual([{ nickname: null }, { nickname: null }]);
  });

  it('changes type only together with a matching recurring, and replaces the schedule of a recurring price', async () => {
    const { client, price } = await withRecurringPrice();

    const rescheduled = await client.data<Price>(client.patch(`/api/v1/prices/${price.id}`, { recurring: { interval: 'week' } }));
    expect(rescheduled).toMatchObject({ type: 'recurring', recurring: { interval: 'week', interval_count: 1 } });

    const oneTime = await client.data<Price>(client.patch(`/api/v1/prices/${price.id}`, { type: 'one_time' }));
    expect(oneTime).toMatchObject({ type: 'one_time', recurring: null });

    const recurringAgain = await client.data<Price>(
      client.patch(`/api/v1/prices/${price.id}`, { type: 'recurring', recurring: { interval: 'day', interval_count: 7 } }),
    );
    expect(recurringAgain).toMatchObject({ type: 'recurring', recurring: { interval: 'day', interval_count: 7 } });
    expect(await client.data(client.patch(`/api/v1/prices/${price.id}`, { type: 'one_time', recurring: null }))).toMatchObject({
      type: 'one_time',
      recurring: null,
    });
  });

  it('archives with DELETE (200, active false, still retrievable) and reactivates with PATCH', async () => {
    const { client, price } = await withRecurringPrice();
    const reply = await client.delete(`/api/v1/prices/${price.id}`);
    expect(reply.statusCode).toBe(200);
    expect(reply.json<{ data: Price }>().data).toEqual({ ...price, active: false });
    expect(await client.data(client.get(`/api/v1/prices/${price.id}`))).toMatchObject({ active: false });
    expect(await client.data(client.patch(`/api/v1/prices/${price.id}`, { active: true }))).toMatchObject({ active: true });
  });

  it('lists newest first and filters by product, active, currency (any case) and type', async () => {
    const client = catalog.workspace();
    const coffee = await newProduct(client, 'Coffee');
    const tea = await newProduct(client, 'Tea');
    const coffeeEur = await createPrice(client, { product: coffee.id, unit_amount: 300, currency: 'EUR' });
    const coffeeUsd = await createPrice(client, { product: coffee.id, unit_amount: 350, currency: 'USD' });
    const teaMonthly = await createPrice(client, {
      product: tea.id, unit_amount: 900, currency: 'EUR', type: 'recurring', recurring: { interval: 'month' },
    });
    await client.delete(`/api/v1/prices/${coffeeUsd.id}`);

    const ids = async (query: string) => (await listAll<Price>(client, `/api/v1/prices${query}`)).map((p) => p.id);
    expect(await ids('')).toEqual([teaMonthly.id, coffeeUsd.id, coffeeEur.id]);
    expect(await ids(`?product=${coffee.id}`)).toEqual([coffeeUsd.id, coffeeEur.id]);
    expect(await ids('?active=true')).toEqual([teaMonthly.id, coffeeEur.id]);
    expect(await ids('?active=false')).toEqual([coffeeUsd.id]);
    expect(await ids('?currency=eur')).toEqual([teaMonthly.id, coffeeEur.id]);
    expect(await ids('?type=recurring')).toEqual([teaMonthly.id]);
    expect(await ids(`?product=${coffee.id}&currency=EUR&type=one_time&active=true`)).toEqual([coffeeEur.id]);
    expect(await ids(`?product=${UNKNOWN_PRODUCT}`)).toEqual([]);
  });

  it.each([
    ['malformed', 'price_xyz'],
    ['another resource prefix', 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887'],
    ['unknown', 'price_0190f3e2c1b27a8e9d1f3c4b5a697887'],
  ])('answers 404 for a %s ID on GET, PATCH and DELETE', async (_, id) => {
    const client = catalog.workspace();
    expectProblem(await client.get(`/api/v1/prices/${id}`), 404, 'not_found');
    expectProblem(await client.patch(`/api/v1/prices/${id}`, { unit_amount: 1 }), 404, 'not_found');
    expectProblem(await client.delete(`/api/v1/prices/${id}`), 404, 'not_found');
  });
});

describe('price validation', () => {
  const valid = { unit_amount: 1000, currency: 'EUR' };

  it.each([
    ['no product', { ...valid }, ['product']],
    ['a malformed product', { ...valid, product: 'prod_short' }, ['product']],
    ['a customer ID as product', { ...valid, product: 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887' }, ['product']],
    ['no unit_amount', { currency: 'EUR' }, ['unit_amount']],
    ['a fractional unit_amount', { ...valid, unit_amount: 10.5 }, ['unit_amount']],
    ['a negative unit_amount', { ...valid, unit_amount: -1 }, ['unit_amount']],
    ['a unit_amount above 2^53 - 1', { ...valid, unit_amount: 2 ** 53 }, ['unit_amount']],
    ['a unit_amount in a string', { ...valid, unit_amount: '1000' }, ['unit_amount']],
    ['no currency', { unit_amount: 1000 }, ['currency']],
    ['a two-letter currency', { ...valid, currency: 'EU' }, ['currency']],
    ['an unknown currency', { ...valid, currency: 'ABC' }, ['currency']],
    ['an unknown type', { ...valid, type: 'tiered' }, ['type']],
    ['type recurring without recurring', { ...valid, type: 'recurring' }, ['recurring']],
    ['type recurring with recurring null', { ...valid, type: 'recurring', recurring: null }, ['recurring']],
    ['recurring on a one-time price', { ...valid, recurring: { interval: 'month' } }, ['recurring']],
    ['recurring without interval', { ...valid, type: 'recurring', recurring: { interval_count: 2 } }, ['recurring.interval']],
    ['an hourly interval', { ...valid, type: 'recurring', recurring: { interval: 'hour' } }, ['recurring.interval']],
    ['interval_count 0', { ...valid, type: 'recurring', recurring: { interval: 'day', interval_count: 0 } }, ['recurring.interval_count']],
    ['interval_count 53', { ...valid, type: 'recurring', recurring: { interval: 'day', interval_count: 53 } }, ['recurring.interval_count']],
    ['interval_count 1.5', { ...valid, type: 'recurring', recurring: { interval: 'day', interval_count: 1.5 } }, ['recurring.interval_count']],
    ['an unknown recurring key', { ...valid, type: 'recurring', recurring: { interval: 'day', usage_type: 'metered' } }, ['recurring.usage_type']],
    ['a negative tax_rate', { ...valid, tax_rate: -0.5 }, ['tax_rate']],
    ['a tax_rate above 100', { ...valid, tax_rate: 100.5 }, ['tax_rate']],
    ['a tax_rate with 5 decimals', { ...valid, tax_rate: 8.12345 }, ['tax_rate']],
    ['a tax_rate in a string', { ...valid, tax_rate: '8.5' }, ['tax_rate']],
    ['a nickname of 251 characters', { ...valid, nickname: 'n'.repeat(251) }, ['nickname']],
    ['billing_scheme tiered', { ...valid, billing_scheme: 'tiered' }, ['billing_scheme']],
  ])('refuses a create with %s (400) and creates nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    const product = await newProduct(client);
    const withProduct = 'product' in body || paths.includes('product') ? body : { product: product.id, ...body };
    expectProblem(await client.post('/api/v1/prices', withProduct), 400, 'invalid_request', paths);
    expect(await listAll(client, '/api/v1/prices')).toEqual([]);
  });

  it('answers 404 for an unknown product or another workspace’s product, and creates nothing', async () => {
    const client = catalog.workspace();
    const elsewhere = await newProduct(catalog.workspace());
    expectProblem(await client.post('/api/v1/prices', { ...valid, product: UNKNOWN_PRODUCT }), 404, 'not_found');
    expectProblem(await client.post('/api/v1/prices', { ...valid, product: elsewhere.id }), 404, 'not_found');
    expect(await listAll(client, '/api/v1/prices')).toEqual([]);
  });

  it.each([
    ['a product', { product: UNKNOWN_PRODUCT }, ['product']],
    ['type recurring on a one-time price without recurring', { type: 'recurring' }, ['recurring']],
    ['recurring on a one-time price', { recurring: { interval: 'month' } }, ['recurring']],
    ['a fractional unit_amount', { unit_amount: 0.5 }, ['unit_amount']],
    ['an invalid currency', { currency: 'euro' }, ['currency']],
    ['a tax_rate of 101', { tax_rate: 101 }, ['tax_rate']],
    ['an unknown field', { billing_scheme: 'per_unit' }, ['billing_scheme']],
  ])('refuses an update of a one-time price with %s (400) and changes nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    const product = await newProduct(client);
    const before = await createPrice(client, { product: product.id, ...valid });
    expectProblem(await client.patch(`/api/v1/prices/${before.id}`, body), 400, 'invalid_request', paths);
    expect(await client.data(client.get(`/api/v1/prices/${before.id}`))).toEqual(before);
  });

  it.each([
    ['recurring null', { recurring: null }, ['recurring']],
    ['type recurring with recurring null', { type: 'recurring', recurring: null }, ['recurring']],
    ['type one_time with a recurring object', { type: 'one_time', recurring: { interval: 'month' } }, ['recurring']],
    ['interval_count 53', { recurring: { interval: 'month', interval_count: 53 } }, ['recurring.interval_count']],
  ])('refuses an update of a recurring price with %s (400) and changes nothing', async (_, body, paths) => {
    const { client, price } = await withRecurringPrice();
    expectProblem(await client.patch(`/api/v1/prices/${price.id}`, body), 400, 'invalid_request', paths);
    expect(await client.data(client.get(`/api/v1/prices/${price.id}`))).toEqual(price);
  });

  it.each([
    ['product=prod_bad', ['product']],
    ['product=cus_0190f3e2c1b27a8e9d1f3c4b5a697887', ['product']],
    ['currency=EURO', ['currency']],
    ['type=tiered', ['type']],
    ['active=maybe', ['active']],
    ['limit=1000', ['limit']],
  ])('refuses a list with %s (400)', async (query, paths) => {
    expectProblem(await catalog.workspace().get(`/api/v1/prices?${query}`), 400, 'invalid_request', paths);
  });
});
