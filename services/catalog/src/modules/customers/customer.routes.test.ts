import { parsePublicId, type Customer } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, listAll, startCatalog, type Catalog, type WorkspaceClient } from '../../../test/harness.ts';

const ISO_MS_UTC = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const EMPTY_ADDRESS = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };

let catalog: Catalog;
beforeAll(async () => {
  catalog = await startCatalog('catalog_customers');
});
afterAll(() => catalog.close());

const createCustomer = (client: WorkspaceClient, body: Record<string, unknown>) =>
  client.data<Customer>(client.post('/api/v1/customers', body));

describe('customers', () => {
  it('creates a customer from a name alone, every other field null', async () => {
    const client = catalog.workspace();
    const reply = await client.post('/api/v1/customers', { name: 'Ada Lovelace' });

    expect(reply.statusCode).toBe(201);
    const customer = reply.json<{ data: Customer }>().data;
    expect(customer).toEqual({
      id: expect.stringMatching(/^cus_[0-9a-f]{32}$/),
      object: 'customer',
      livemode: true,
      name: 'Ada Lovelace',
      email: null,
      phone: null,
      tax_id: null,
      address: EMPTY_ADDRESS,
      electronic_address: null,
      electronic_address_scheme: null,
      buyer_reference: null,
      identifier: null,
      identifier_scheme: null,
      contact_name: null,
      preferred_locale: null,
      email_status: 'ok',
      test_clock: null,
      deleted: false,
      metadata: {},
      created: expect.stringMatching(ISO_MS_UTC),
    });
  });

  it('puts a customer on a test clock billing knows (404 for one it does not, nothing made); deleting the clock’s customers leaves the others', async () => {
    const client = catalog.workspace();
    const clockId = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
    const clock = `clock_${clockId.replaceAll('-', '')}`;
    expectProblem(await client.post('/api/v1/customers', { name: 'On no clock', test_clock: clock }), 404, 'not_found');
    expectProblem(await client.post('/api/v1/customers', { name: 'Bad id', test_clock: 'cus_123' }), 400, 'invalid_request');
    expect(await listAll(client, '/api/v1/customers')).toEqual([]);
    catalog.testClocks.add(clockId);
    const onClock = await createCustomer(client, { name: 'On the clock', test_clock: clock });
    expect(onClock.test_clock).toBe(clock);
    const other = await createCustomer(client, { name: 'Real time' });
    const deleted = await client.post(`/internal/v1/test_clocks/${clock}/customers/delete`, {});
    expect(deleted.json()).toEqual({ data: { count: 1 } });
    expect((await client.get(`/api/v1/customers/${onClock.id}`)).statusCode).toBe(404);
    expect((await client.get(`/api/v1/customers/${other.id}`)).statusCode).toBe(200);
  });

  it('keeps the e-invoice fields sent (scheme uppercased), changes them by PATCH and clears them with ""', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, {
      name: 'Stadt Köln',
      electronic_address: ' 991-12345-67 ',
      electronic_address_scheme: '0204',
      buyer_reference: '991-12345-67',
    });
    expect(created).toMatchObject({ electronic_address: '991-12345-67', electronic_address_scheme: '0204', buyer_reference: '991-12345-67' });
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(created);

    const email = await client.data<Customer>(
      client.patch(`/api/v1/customers/${created.id}`, { electronic_address: 'einvoice@koeln.example', electronic_address_scheme: 'em', buyer_reference: '' }),
    );
    expect(email).toEqual({ ...created, electronic_address: 'einvoice@koeln.example', electronic_address_scheme: 'EM', buyer_reference: null });

    const cleared = await client.data<Customer>(client.patch(`/api/v1/customers/${created.id}`, { electronic_address: '', electronic_address_scheme: null }));
    expect(cleared).toEqual({ ...email, electronic_address: null, electronic_address_scheme: null });
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(cleared);
  });

  it('keeps the buyer identifier, its scheme and the contact name, lists them, changes them by PATCH and clears them', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, { name: 'Großmarkt eG', identifier: ' 4000001000005 ', identifier_scheme: '0088', contact_name: 'Kreditorenbuchhaltung' });
    expect(created).toMatchObject({ identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Kreditorenbuchhaltung' });
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(created);
    expect(await listAll(client, '/api/v1/customers')).toEqual([created]);

    const renamed = await client.data<Customer>(client.patch(`/api/v1/customers/${created.id}`, { identifier: 'GM-17', identifier_scheme: null, contact_name: 'Frau Weber' }));
    expect(renamed).toEqual({ ...created, identifier: 'GM-17', identifier_scheme: null, contact_name: 'Frau Weber' });

    const cleared = await client.data<Customer>(client.patch(`/api/v1/customers/${created.id}`, { identifier: '', contact_name: '  ' }));
    expect(cleared).toEqual({ ...renamed, identifier: null, contact_name: null });
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(cleared);
  });

  it('keeps every field sent, with the country uppercased, and retrieves it by public ID or dashed UUID', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, {
      name: 'Müller GmbH',
      email: 'billing@mueller.de',
      phone: '+49 221 123456',
      tax_id: 'DE123456789',
      address: { line1: 'Straße 5', city: 'Köln', postal_code: '50667', country: 'de' },
    });
    expect(created.address).toEqual({ ...EMPTY_ADDRESS, line1: 'Straße 5', city: 'Köln', postal_code: '50667', country: 'DE' });

    const hex = created.id.slice('cus_'.length);
    const dashed = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(created);
    expect(await client.data(client.get(`/api/v1/customers/${dashed}`))).toEqual(created);
    expect(await client.data(client.get(`/api/v1/customers/${dashed.toUpperCase()}`))).toEqual(created);
  });

  it('updates only the fields sent: an empty email clears it and the address merges by key', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, {
      name: 'Acme',
      email: 'ap@acme.test',
      phone: '555-0100',
      address: { line1: '1 Main St', line2: 'Floor 2', city: 'Springfield', country: 'US' },
    });

    const updated = await client.data<Customer>(
      client.patch(`/api/v1/customers/${created.id}`, { email: '', address: { line1: '2 Main St', line2: null } }),
    );

    expect(updated).toEqual({
      ...created,
      email: null,
      address: { ...created.address, line1: '2 Main St', line2: null },
    });
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(updated);
    expect(await client.data(client.patch(`/api/v1/customers/${created.id}`, {}))).toEqual(updated);
  });

  it('stores an empty or blank optional field as null, on create and on update, and reads it back as null', async () => {
    const client = catalog.workspace();
    const blankAddress = { line1: '', line2: '  ', city: '', state: '', postal_code: ' ', country: '' };
    const created = await createCustomer(client, { name: 'Blank', email: '', phone: '', tax_id: '   ', address: blankAddress });
    expect(created).toMatchObject({ email: null, phone: null, tax_id: null, address: EMPTY_ADDRESS });

    const filled = await createCustomer(client, {
      name: 'Filled',
      email: 'a@b.example',
      phone: '555',
      tax_id: 'T1',
      address: { line1: 'L1', line2: 'L2', city: 'C', state: 'S', postal_code: 'P', country: 'FR' },
    });
    const cleared = await client.data<Customer>(
      client.patch(`/api/v1/customers/${filled.id}`, { email: ' ', phone: '', tax_id: '', address: blankAddress }),
    );
    expect(cleared).toEqual({ ...filled, email: null, phone: null, tax_id: null, address: EMPTY_ADDRESS });
    expect(await client.data(client.get(`/api/v1/customers/${filled.id}`))).toEqual(cleared);

    const rows = await catalog.orm.em
      .getConnection()
      .execute<{ email: unknown; phone: unknown; tax_id: unknown; address: unknown }[]>(
        'select email, phone, tax_id, address from catalog.customers where id in (?, ?)',
        [parsePublicId('customer', created.id), parsePublicId('customer', filled.id)],
      );
    expect(rows).toEqual([
      { email: null, phone: null, tax_id: null, address: EMPTY_ADDRESS },
      { email: null, phone: null, tax_id: null, address: EMPTY_ADDRESS },
    ]);
  });

  it('refuses to change an archived customer (409 invalid_state) and changes nothing; DELETE again still answers 200', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, { name: 'Gone', email: 'gone@b.example', address: { city: 'Lyon' } });
    const archived = await client.data<Customer>(client.delete(`/api/v1/customers/${created.id}`));

    for (const body of [{ name: 'Revived' }, { email: '' }, { address: { city: 'Paris' } }, {}]) {
      const problem = expectProblem(await client.patch(`/api/v1/customers/${created.id}`, body), 409, 'invalid_state');
      expect(problem.detail).toMatch(/deleted customer cannot be changed/);
    }
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toEqual(archived);
    expect(await client.data(client.delete(`/api/v1/customers/${created.id}`))).toEqual(archived);
  });

  it('applies concurrent address updates one after the other, losing none', async () => {
    const client = catalog.workspace();
    const created = await createCustomer(client, { name: 'Busy' });
    const sent = { line1: 'L1', line2: 'L2', city: 'City', state: 'ST', postal_code: '12345', country: 'NL' };

    const replies = await Promise.all(
      Object.entries(sent).map(([key, value]) => client.patch(`/api/v1/customers/${created.id}`, { address: { [key]: value } })),
    );

    expect(replies.map((reply) => reply.statusCode)).toEqual(Array(6).fill(200));
    expect(await client.data(client.get(`/api/v1/customers/${created.id}`))).toMatchObject({ address: sent });
  });

  it('archives with DELETE: still retrievable, hidden from lists unless include_deleted=true', async () => {
    const client = catalog.workspace();
    const kept = await createCustomer(client, { name: 'Kept' });
    const archived = await createCustomer(client, { name: 'Archived' });

    const reply = await client.delete(`/api/v1/customers/${archived.id}`);
    expect(reply.statusCode).toBe(200);
    expect(reply.json<{ data: Customer }>().data).toEqual({ ...archived, deleted: true });

    expect(await client.data(client.get(`/api/v1/customers/${archived.id}`))).toMatchObject({ deleted: true });
    expect((await listAll<Customer>(client, '/api/v1/customers')).map((c) => c.id)).toEqual([kept.id]);
    expect((await listAll<Customer>(client, '/api/v1/customers?include_deleted=true')).map((c) => c.id)).toEqual([archived.id, kept.id]);
    expect((await listAll<Customer>(client, '/api/v1/customers?include_deleted=false')).map((c) => c.id)).toEqual([kept.id]);
    expect(await client.data(client.delete(`/api/v1/customers/${archived.id}`))).toMatchObject({ deleted: true });
  });

  it('searches name, email and tax ID with partial, case-insensitive matches; wildcards are literal', async () => {
    const client = catalog.workspace();
    const byName = await createCustomer(client, { name: 'Northwind Traders' });
    const byEmail = await createCustomer(client, { name: 'Someone', email: 'ap@NORTHWIND.example' });
    const byTaxId = await createCustomer(client, { name: 'Other', tax_id: 'GB-NWT-100%' });
    await createCustomer(client, { name: 'Unrelated', email: 'x@y.example', tax_id: 'GB1000' });

    const search = async (q: string) =>
      (await listAll<Customer>(client, `/api/v1/customers?q=${encodeURIComponent(q)}`)).map((c) => c.id);
    expect(await search('northwind')).toEqual([byEmail.id, byName.id]);
    expect(await search('WIND TRA')).toEqual([byName.id]);
    expect(await search('nwt-1')).toEqual([byTaxId.id]);
    expect(await search('100%')).toEqual([byTaxId.id]);
    expect(await search('_')).toEqual([]);
    expect(await search('nothing like it')).toEqual([]);
  });

  it('lists newest first, 20 by default, with next_cursor null on the last page', async () => {
    const client = catalog.workspace();
    const ids: string[] = [];
    for (let i = 0; i < 23; i += 1) ids.push((await createCustomer(client, { name: `Customer ${i}` })).id);

    const first = (await client.get('/api/v1/customers')).json<{ data: Customer[]; next_cursor: string | null }>();
    expect(first.data.map((c) => c.id)).toEqual(ids.toReversed().slice(0, 20));
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = (await client.get(`/api/v1/customers?cursor=${first.next_cursor}`)).json<{ data: Customer[]; next_cursor: string | null }>();
    expect(second.data.map((c) => c.id)).toEqual(ids.toReversed().slice(20));
    expect(second.next_cursor).toBeNull();
    const exact = (await client.get('/api/v1/customers?limit=23')).json<{ data: Customer[]; next_cursor: string | null }>();
    expect(exact.data).toHaveLength(23);
    expect(exact.next_cursor).toBeNull();
  });

  it.each([
    ['malformed', 'cus_nothex'],
    ['another resource prefix', 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887'],
    ['unknown', 'cus_0190f3e2c1b27a8e9d1f3c4b5a697887'],
    ['unknown dashed UUID', '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887'],
  ])('answers 404 for a %s ID on GET, PATCH and DELETE', async (_, id) => {
    const client = catalog.workspace();
    expectProblem(await client.get(`/api/v1/customers/${id}`), 404, 'not_found');
    expectProblem(await client.patch(`/api/v1/customers/${id}`, { name: 'x' }), 404, 'not_found');
    expectProblem(await client.delete(`/api/v1/customers/${id}`), 404, 'not_found');
  });
});

describe('customer validation', () => {
  it.each([
    ['no name', { email: 'a@b.example' }, ['name']],
    ['an empty name', { name: '' }, ['name']],
    ['a blank name', { name: '   ' }, ['name']],
    ['a name that is not a string', { name: 42 }, ['name']],
    ['an invalid email', { name: 'A', email: 'not-an-email' }, ['email']],
    ['an email that is not a string', { name: 'A', email: ['a@b.example'] }, ['email']],
    ['a three-letter country', { name: 'A', address: { country: 'DEU' } }, ['address.country']],
    ['an unknown address key', { name: 'A', address: { street: 'Main St' } }, ['address.street']],
    ['an address that is not an object', { name: 'A', address: 'Main St 1' }, ['address']],
    ['an unknown field', { name: 'A', deleted: true }, ['deleted']],
    ['an electronic address that is no email, without a scheme', { name: 'A', electronic_address: '991-12345-67' }, ['electronic_address']],
    ['an electronic address scheme that is no EAS code', { name: 'A', electronic_address: 'x@y.example', electronic_address_scheme: 'XX' }, ['electronic_address_scheme']],
    ['a buyer reference above 200 characters', { name: 'A', buyer_reference: 'x'.repeat(201) }, ['buyer_reference']],
    ['an identifier scheme that is no ISO 6523 ICD code', { name: 'A', identifier: 'X1', identifier_scheme: 'GLN' }, ['identifier_scheme']],
    ['an identifier scheme without an identifier', { name: 'A', identifier_scheme: '0088' }, ['identifier_scheme']],
    ['an identifier above 100 characters', { name: 'A', identifier: 'x'.repeat(101) }, ['identifier']],
    ['a contact name above 200 characters', { name: 'A', contact_name: 'x'.repeat(201) }, ['contact_name']],
    ['a body that is an array', [{ name: 'A' }], []],
  ])('refuses a create with %s (400) and creates nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    expectProblem(await client.post('/api/v1/customers', body), 400, 'invalid_request', paths);
    expect(await listAll(client, '/api/v1/customers?include_deleted=true')).toEqual([]);
  });

  it.each([
    ['an empty name', { name: '' }, ['name']],
    ['an invalid email', { email: 'nope' }, ['email']],
    ['a two-digit country', { address: { country: '12' } }, ['address.country']],
    ['an unknown field', { nickname: 'x' }, ['nickname']],
    ['a try to undelete', { deleted: false }, ['deleted']],
    ['a scheme of EM for a stored non-email address', { electronic_address: '991-12345-67', electronic_address_scheme: 'EM' }, ['electronic_address']],
    ['a five-digit scheme', { electronic_address_scheme: '02040' }, ['electronic_address_scheme']],
    ['an identifier scheme without an identifier', { identifier_scheme: '0088', contact_name: 'Someone' }, ['identifier_scheme']],
    ['a contact name that is not a string', { contact_name: 7 }, ['contact_name']],
  ])('refuses an update with %s (400) and changes nothing', async (_, body, paths) => {
    const client = catalog.workspace();
    const before = await createCustomer(client, { name: 'Before', email: 'before@b.example', address: { country: 'FR' } });
    expectProblem(await client.patch(`/api/v1/customers/${before.id}`, body), 400, 'invalid_request', paths);
    expect(await client.data(client.get(`/api/v1/customers/${before.id}`))).toEqual(before);
  });

  it.each([
    ['limit=0', ['limit']],
    ['limit=101', ['limit']],
    ['limit=ten', ['limit']],
    ['limit=2.5', ['limit']],
    ['include_deleted=yes', ['include_deleted']],
    ['cursor=not-a-cursor', ['cursor']],
    [`cursor=${Buffer.from('["yesterday","x"]').toString('base64url')}`, ['cursor']],
    ['q=', ['q']],
    ['sort=name', ['sort']],
  ])('refuses a list with %s (400)', async (query, paths) => {
    expectProblem(await catalog.workspace().get(`/api/v1/customers?${query}`), 400, 'invalid_request', paths);
  });

  it('accepts a limit of 100', async () => {
    expect((await catalog.workspace().get('/api/v1/customers?limit=100')).statusCode).toBe(200);
  });
});
