import { migrateDatabase, type Orm } from '@invoicing/service-kit';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayHeaders } from '../../test/harness.ts';
import { buildApp } from '../app.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from '../database.ts';

const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
const CUSTOMER = '0190f3e2-c1b2-7a8e-9d1f-000000000001';
const KEPT_CUSTOMER = '0190f3e2-c1b2-7a8e-9d1f-000000000002';
const PRODUCT = '0190f3e2-c1b2-7a8e-9d1f-000000000003';
const PRICE = '0190f3e2-c1b2-7a8e-9d1f-000000000004';
const CREATED = '2026-11-01T10:00:00.000Z';

let database: TestDatabase;
let orm: Orm;

// Rows written before every optional text field turned "" into null: the API then stored some
// empty and blank strings as they came.
beforeAll(async () => {
  database = await createTestDatabase('catalog_blank_text');
  orm = await openCatalogDatabase(database.url, 2);
  const sql = orm.em.getConnection();
  await sql.execute(`create schema if not exists ${CATALOG_SCHEMA}`);
  await orm.migrator.up({ to: 'Migration20261123000000CreateCatalog' });
  const blankAddress = { line1: '', line2: '  ', city: 'Köln', state: null, postal_code: '\t', country: 'DE' };
  const fullAddress = { line1: 'L1', line2: 'L2', city: 'C', state: 'S', postal_code: 'P', country: 'FR' };
  await sql.execute(
    `insert into catalog.customers (id, workspace_id, name, email, phone, tax_id, address, created)
     values (?, ?, 'Blank', '  ', '', 'T1', ?, ?), (?, ?, 'Kept', 'k@b.example', ' 555 ', 'T2', ?, ?)`,
    [CUSTOMER, WORKSPACE, JSON.stringify(blankAddress), CREATED, KEPT_CUSTOMER, WORKSPACE, JSON.stringify(fullAddress), CREATED],
  );
  await sql.execute(`insert into catalog.products (id, workspace_id, name, description, created, updated) values (?, ?, 'P', '', ?, ?)`, [
    PRODUCT,
    WORKSPACE,
    CREATED,
    CREATED,
  ]);
  await sql.execute(
    `insert into catalog.prices (id, workspace_id, product_id, nickname, unit_amount, currency, type, created) values (?, ?, ?, ' ', 100, 'EUR', 'one_time', ?)`,
    [PRICE, WORKSPACE, PRODUCT, CREATED],
  );
  await migrateDatabase(orm, CATALOG_SCHEMA, database.url);
});

afterAll(async () => {
  await orm?.close();
  await database?.drop();
});

describe('the migration that turns stored empty text into null', () => {
  it('makes every empty or blank optional text field read back as null, and leaves the rest as it was', async () => {
    const app = buildApp({ orm, internalToken: gatewayHeaders(WORKSPACE)['x-internal-token'], testClocks: { exists: async () => false } });
    try {
      const read = async (path: string) => (await app.inject({ method: 'GET', url: path, headers: gatewayHeaders(WORKSPACE) })).json<{ data: Record<string, unknown> }>().data;
      expect(await read(`/api/v1/customers/${CUSTOMER}`)).toMatchObject({
        email: null,
        phone: null,
        tax_id: 'T1',
        address: { line1: null, line2: null, city: 'Köln', state: null, postal_code: null, country: 'DE' },
      });
      expect(await read(`/api/v1/customers/${KEPT_CUSTOMER}`)).toMatchObject({
        email: 'k@b.example',
        phone: ' 555 ',
        tax_id: 'T2',
        address: { line1: 'L1', line2: 'L2', city: 'C', state: 'S', postal_code: 'P', country: 'FR' },
      });
      expect(await read(`/api/v1/products/${PRODUCT}`)).toMatchObject({ description: null, updated: CREATED });
      expect(await read(`/api/v1/prices/${PRICE}`)).toMatchObject({ nickname: null });
    } finally {
      await app.close();
    }
  });
});
