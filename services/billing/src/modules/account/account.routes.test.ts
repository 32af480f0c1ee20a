import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { migrateDatabase, type Orm } from '@invoicing/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingHarness, workspaceClient, type BillingHarness } from '../../../test/support/billing-harness.ts';
import { BILLING_SCHEMA, openBillingDatabase } from '../../database.ts';

const EMPTY_ADDRESS = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

describe('account: an empty optional text field is null', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('stores "" and blank strings as null in every optional text field and the address, and reads them back as null', async () => {
    const api = workspaceClient(harness.service);
    await api.call('PATCH', '/api/v1/account', {
      business_name: 'Seller',
      email: 'seller@example.com',
      tax_id: 'T1',
      payment_instructions: 'IBAN',
      brand_color: '#1a2b3c',
      address: { line1: 'L1', line2: 'L2', city: 'C', state: 'S', postal_code: 'P', country: 'fr' },
    });

    const patched = await api.call('PATCH', '/api/v1/account', {
      business_name: ' ',
      email: '',
      tax_id: '',
      payment_instructions: '\n',
      brand_color: '',
      address: { line1: '', line2: '', city: ' ', state: '', postal_code: '', country: '' },
    });

    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    expect(patched.body.data).toMatchObject({ business_name: null, email: null, tax_id: null, payment_instructions: null, brand_color: null, address: EMPTY_ADDRESS });
    expect((await api.call('GET', '/api/v1/account')).body.data).toEqual(patched.body.data);
    const [row] = await harness.sql(
      'select business_name, email, tax_id, payment_instructions, brand_color, address from billing.accounts where workspace_id = ?',
      [api.workspaceId],
    );
    expect(row).toEqual({ business_name: null, email: null, tax_id: null, payment_instructions: null, brand_color: null, address: EMPTY_ADDRESS });
  });
});

describe('the migration that turns stored empty account text into null', () => {
  const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
  let database: TestDatabase;
  let orm: Orm;

  // An account saved before the rule: blank values of trimmed fields and address keys were kept as "".
  beforeAll(async () => {
    database = await createTestDatabase('billing_blank_text');
    orm = await openBillingDatabase(database.url, 2);
    await orm.em.getConnection().execute(`create schema if not exists ${BILLING_SCHEMA}`);
    await orm.migrator.up({ to: 'Migration20261202100000OutboxClaims' });
    await orm.em.getConnection().execute(
      `insert into billing.accounts (workspace_id, business_name, email, address, tax_id, default_currency, timezone, number_format, payment_instructions, brand_color, created_at, updated_at)
       values (?, '', null, ?, ' ', 'EUR', 'UTC', 'INV/{YYYY}/{SEQ:4}', 'IBAN', null, now(), now())`,
      [WORKSPACE, JSON.stringify({ line1: 'L1', line2: '', city: ' ', state: null, postal_code: 'P', country: 'DE' })],
    );
    await migrateDatabase(orm, BILLING_SCHEMA, database.url);
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it('leaves null where an optional text field or address key was empty or blank, and the rest as it was', async () => {
    const [row] = await orm.em
      .getConnection()
      .execute('select business_name, tax_id, payment_instructions, address from billing.accounts where workspace_id = ?', [WORKSPACE]);
    expect(row).toEqual({
      business_name: null,
      tax_id: null,
      payment_instructions: 'IBAN',
      address: { line1: 'L1', line2: null, city: null, state: null, postal_code: 'P', country: 'DE' },
    });
  });
});
