import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startCatalog, type Catalog } from '../../test/harness.ts';
import { customerRepository } from '../modules/customers/customer.repository.ts';
import { productRepository } from '../modules/products/product.repository.ts';

let catalog: Catalog;
const workspaceId = randomUUID();

// Random lowercase words, so trigrams are as varied as in real names.
const word = (length: string) => `(select string_agg(chr(97 + (random() * 25)::int), '') from generate_series(1, ${length} + i * 0))`;

beforeAll(async () => {
  catalog = await startCatalog('catalog_search_index');
  const em = catalog.orm.em.fork();
  // Half the rows in the searched workspace, half spread over others.
  const workspace = `case when i % 2 = 0 then '${workspaceId}'::uuid else gen_random_uuid() end`;
  await em.execute(`
    insert into catalog.customers (id, workspace_id, name, email, tax_id, address, created)
    select gen_random_uuid(), ${workspace}, ${word('10')} || ' GmbH', ${word('8')} || '@example.com',
           'DE' || (100000000 + i * 7919 % 899999999), '{}', now() - i * interval '1 second'
    from generate_series(1, 4000) i`);
  await em.execute(`
    insert into catalog.products (id, workspace_id, name, description, created, updated)
    select gen_random_uuid(), ${workspace}, ${word('12')}, ${word('30')}, now() - i * interval '1 second', now()
    from generate_series(1, 4000) i`);
  await em.execute('analyze catalog.customers');
  await em.execute('analyze catalog.products');
});
afterAll(() => catalog.close());

const planOf = async (sql: string): Promise<string> => {
  const rows = await catalog.orm.em.fork().execute<{ 'QUERY PLAN': string }[]>(`explain ${sql}`);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
};

describe('search uses the trigram indexes, not a table scan', () => {
  it('customers: q over name, email and tax ID', async () => {
    const query = customerRepository(catalog.orm.em.fork()).pageNewestFirstQuery(workspaceId, { q: 'qzwx', includeDeleted: false }, undefined, 20);
    const plan = await planOf(query.getFormattedQuery());
    expect(plan).not.toMatch(/Seq Scan/);
    for (const index of ['customers_name_trgm', 'customers_email_trgm', 'customers_tax_id_trgm']) expect(plan).toContain(index);
  });

  it('products: q over name and description', async () => {
    const query = productRepository(catalog.orm.em.fork()).pageNewestFirstQuery(workspaceId, { q: 'qzwx' }, undefined, 20);
    const plan = await planOf(query.getFormattedQuery());
    expect(plan).not.toMatch(/Seq Scan/);
    for (const index of ['products_name_trgm', 'products_description_trgm']) expect(plan).toContain(index);
  });

  it('a later page starts at the cursor inside the newest-first index', async () => {
    const position = { created: new Date(), id: randomUUID() };
    const query = customerRepository(catalog.orm.em.fork()).pageNewestFirstQuery(workspaceId, { includeDeleted: false }, position, 20);
    const plan = await planOf(query.getFormattedQuery());
    expect(plan).toMatch(/Index Scan using customers_newest_first/);
    expect(plan).toMatch(/Index Cond: .*ROW\(created, id\) < ROW/);
  });
});
