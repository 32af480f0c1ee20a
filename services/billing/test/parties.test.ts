import { randomUUID } from 'node:crypto';
import { migrateDatabase, type Orm } from '@invoicing/service-kit';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import type { Account, Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BILLING_SCHEMA, openBillingDatabase } from '../src/database.ts';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

/** Issue #25: the seller's and buyer's party fields and the payment means, on the account, the customer and the invoice. */

const NULLS = { information: null, iban: null, bic: null, account_name: null, mandate_reference: null, creditor_id: null, debited_iban: null, card_last4: null, card_holder: null };
const TRANSFER = { ...NULLS, type: 'credit_transfer', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', account_name: 'Seller GmbH', information: 'SEPA credit transfer' };
const SECOND_TRANSFER = { ...NULLS, type: 'credit_transfer', iban: 'DE02120300000000202051' };
const CARD = { ...NULLS, type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' };
const DEBIT = { ...NULLS, type: 'sepa_direct_debit', mandate_reference: 'M-2026-7', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051' };
const EMPTY_ADDRESS = { line1: null, line2: null, city: null, state: null, postal_code: null, country: null };
const REPRESENTATIVE = { name: 'Steuervertretung AG', tax_id: 'DE111222333', address: { ...EMPTY_ADDRESS, line1: 'Ring 1', city: 'Wien', postal_code: '1010', country: 'AT' } };
const SELLER = {
  business_name: 'Seller GmbH',
  email: 'invoices@seller.example',
  phone: '+49 30 1',
  contact_name: 'Accounts receivable',
  address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
  tax_id: 'DE123456789',
  default_currency: 'EUR',
};
const ITEMS = [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }];

describe('parties and payment means', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const account = async (api: WorkspaceClient): Promise<Account> => (await api.call('GET', '/api/v1/account')).body.data;
  const patchAccount = async (api: WorkspaceClient, body: Record<string, unknown>): Promise<Account> => {
    const response = await api.call('PATCH', '/api/v1/account', body);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };

  describe('account', () => {
    it('keeps every party field and the payment means of several types, and reads payment_account as the first credit transfer', async () => {
      const api = workspaceClient(harness.service);
      const patched = await patchAccount(api, {
        trading_name: ' Acme Studio ',
        registration_id: 'HRB 12345',
        registration_id_scheme: '0088',
        legal_info: 'Amtsgericht Köln, Stammkapital 25.000 EUR',
        tax_representative: { name: 'Steuervertretung AG', tax_id: 'DE111222333', address: { line1: 'Ring 1', city: 'Wien', postal_code: '1010', country: 'at' } },
        payment_means: [
          { type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' },
          { type: 'credit_transfer', iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx', account_name: 'Seller GmbH', information: 'SEPA credit transfer' },
          { type: 'sepa_direct_debit', mandate_reference: 'M-2026-7', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02 1203 0000 0000 2020 51' },
        ],
      });
      expect(patched).toMatchObject({
        trading_name: 'Acme Studio',
        registration_id: 'HRB 12345',
        registration_id_scheme: '0088',
        legal_info: 'Amtsgericht Köln, Stammkapital 25.000 EUR',
        tax_representative: REPRESENTATIVE,
        payment_means: [CARD, TRANSFER, DEBIT],
        payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Seller GmbH' },
      });
      expect(await account(api)).toEqual(patched);

      const cleared = await patchAccount(api, { trading_name: '', registration_id: null, registration_id_scheme: null, legal_info: ' ', tax_representative: null, payment_means: [] });
      expect(cleared).toEqual({ ...patched, trading_name: null, registration_id: null, registration_id_scheme: null, legal_info: null, tax_representative: null, payment_means: [], payment_account: null });
      expect(await account(api)).toEqual(cleared);
    });

    it('sets payment_account as the first credit transfer of payment_means: added at the front, replaced, removed by null', async () => {
      const api = workspaceClient(harness.service);
      await patchAccount(api, { payment_means: [{ type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' }] });

      const added = await patchAccount(api, { payment_account: { iban: 'DE02 1203 0000 0000 2020 51' } });
      expect(added).toMatchObject({ payment_means: [SECOND_TRANSFER, CARD], payment_account: { iban: 'DE02120300000000202051', bic: null, name: null } });

      await patchAccount(api, { payment_means: [CARD, TRANSFER, SECOND_TRANSFER].map(({ type, ...fields }) => ({ type, ...Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null)) })) });
      const replaced = await patchAccount(api, { payment_account: { iban: 'DE75512108001245126199', name: 'New Holder' } });
      // The first credit transfer takes the account, keeping its text; the other entries stay.
      expect(replaced.payment_means).toEqual([CARD, { ...NULLS, type: 'credit_transfer', iban: 'DE75512108001245126199', account_name: 'New Holder', information: 'SEPA credit transfer' }, SECOND_TRANSFER]);
      expect(replaced.payment_account).toEqual({ iban: 'DE75512108001245126199', bic: null, name: 'New Holder' });

      const removed = await patchAccount(api, { payment_account: null });
      expect(removed.payment_means).toEqual([CARD, SECOND_TRANSFER]);
      expect(removed.payment_account).toEqual({ iban: 'DE02120300000000202051', bic: null, name: null });
    });

    it.each<[string, Record<string, unknown>, string[]]>([
      ['payment_account with payment_means', { payment_account: { iban: 'DE89370400440532013000' }, payment_means: [] }, ['payment_account', 'payment_means']],
      ['a registration id scheme without registration id', { registration_id_scheme: '0088' }, ['registration_id_scheme']],
      ['a registration id scheme that is no ISO 6523 code', { registration_id: 'HRB 1', registration_id_scheme: 'HRB' }, ['registration_id_scheme']],
      ['a tax representative without country', { tax_representative: { name: 'X', tax_id: 'DE111222333', address: { city: 'Wien' } } }, ['tax_representative.address.country']],
      ['a tax representative without VAT id', { tax_representative: { name: 'X', address: { country: 'AT' } } }, ['tax_representative.tax_id']],
      ['a tax representative without name', { tax_representative: { name: ' ', tax_id: 'DE111222333', address: { country: 'AT' } } }, ['tax_representative.name']],
      ['a credit transfer without IBAN', { payment_means: [{ type: 'credit_transfer', bic: 'COBADEFFXXX' }] }, ['payment_means.0.iban']],
      ['a card entry with an IBAN', { payment_means: [{ type: 'card', card_last4: '4242', iban: 'DE89370400440532013000' }] }, ['payment_means.0.iban']],
      ['a debited IBAN whose check digits fail', { payment_means: [{ type: 'sepa_direct_debit', debited_iban: 'DE03120300000000202051' }] }, ['payment_means.0.debited_iban']],
      ['a whole card number', { payment_means: [{ type: 'card', card_last4: '4242424242424242' }] }, ['payment_means.0.card_last4']],
      ['an unknown payment means type', { payment_means: [{ type: 'cash' }] }, ['payment_means.0.type']],
      ['more than 10 payment means', { payment_means: Array.from({ length: 11 }, () => ({ type: 'paypal' })) }, ['payment_means']],
    ])('refuses %s with a 400 naming the field, and changes nothing', async (_, body, paths) => {
      const api = workspaceClient(harness.service);
      const before = await patchAccount(api, { ...SELLER, trading_name: 'Before', payment_means: [{ type: 'credit_transfer', iban: 'DE89370400440532013000' }] });
      const response = await api.call('PATCH', '/api/v1/account', { trading_name: 'After', ...body });
      expect(response.status, JSON.stringify(response.body)).toBe(400);
      expect(response.body.code).toBe('invalid_request');
      expect(response.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
      expect(await account(api)).toEqual(before);
    });
  });

  describe('invoice drafts', () => {
    let api: WorkspaceClient;
    let customer: { id: string };
    beforeAll(async () => {
      api = workspaceClient(harness.service);
      customer = await catalogSeeder(harness, api.workspaceId).customer();
    });
    const create = (body: Record<string, unknown>) => api.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS, ...body }, { 'x-idempotency-key': randomUUID() });

    it('keeps payment means, payee and preceding invoice on create, changes them by PATCH, and null or [] removes them', async () => {
      const created = await create({
        payment_means: [{ type: 'credit_transfer', iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', account_name: 'Seller GmbH', information: 'SEPA credit transfer' }, { type: 'credit_transfer', iban: 'DE02120300000000202051' }],
        payee: { name: 'Factoring GmbH', identifier: 'FG-77', legal_registration_id: 'HRB 999' },
        preceding_invoice: { number: 'INV/2026/0007', issue_date: '2026-10-01' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const draft: Invoice = created.body.data;
      expect(draft).toMatchObject({
        payment_means: [TRANSFER, SECOND_TRANSFER],
        payee: { name: 'Factoring GmbH', identifier: 'FG-77', legal_registration_id: 'HRB 999' },
        preceding_invoice: { number: 'INV/2026/0007', issue_date: '2026-10-01' },
      });
      expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data).toEqual(draft);

      const changed = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { payment_means: [{ type: 'sepa_direct_debit', mandate_reference: 'M-2026-7', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051' }], payee: { name: 'Other Payee' }, preceding_invoice: { number: 'INV/2026/0008' } });
      expect(changed.status, JSON.stringify(changed.body)).toBe(200);
      expect(changed.body.data).toMatchObject({ payment_means: [DEBIT], payee: { name: 'Other Payee', identifier: null, legal_registration_id: null }, preceding_invoice: { number: 'INV/2026/0008', issue_date: null } });

      const removed = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { payment_means: [], payee: null, preceding_invoice: null });
      expect(removed.body.data).toMatchObject({ payment_means: [], payee: null, preceding_invoice: null });
      expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data).toEqual(removed.body.data);
    });

    it('treats a PATCH of the values already there as no change', async () => {
      const draft: Invoice = (await create({ payee: { name: 'Factoring GmbH' }, payment_means: [{ type: 'paypal', information: 'pay@seller.example' }] })).body.data;
      const same = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { payee: { name: 'Factoring GmbH' }, payment_means: [{ type: 'paypal', information: 'pay@seller.example' }] });
      expect(same.status).toBe(200);
      expect(same.body.data.updated_at).toBe(draft.updated_at);
    });

    it.each<[string, Record<string, unknown>, string[]]>([
      ['payment means of two types', { payment_means: [{ type: 'credit_transfer', iban: 'DE89370400440532013000' }, { type: 'card', card_last4: '4242' }] }, ['payment_means.1.type']],
      ['a credit transfer with a mandate reference', { payment_means: [{ type: 'credit_transfer', iban: 'DE89370400440532013000', mandate_reference: 'M-1' }] }, ['payment_means.0.mandate_reference']],
      ['a payee without name', { payee: { identifier: 'FG-77' } }, ['payee.name']],
      ['a payee with an unknown field', { payee: { name: 'F', vat: 'DE1' } }, ['payee.vat']],
      ['a preceding invoice without number', { preceding_invoice: { issue_date: '2026-10-01' } }, ['preceding_invoice.number']],
      ['a preceding invoice with a date that is none', { preceding_invoice: { number: 'A', issue_date: '2026-13-01' } }, ['preceding_invoice.issue_date']],
    ])('refuses %s with a 400 naming the field, on create (nothing created) and on PATCH (nothing changed)', async (_, body, paths) => {
      const refused = await create(body);
      expect(refused.status, JSON.stringify(refused.body)).toBe(400);
      expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);

      const draft: Invoice = (await create({ payee: { name: 'Before' }, preceding_invoice: { number: 'P-1' } })).body.data;
      const patched = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'changed', ...body });
      expect(patched.status).toBe(400);
      expect(patched.body.errors.map((error: { path: string }) => error.path)).toEqual(paths);
      expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data).toEqual(draft);
    });
  });

  describe('finalization', () => {
    const finalize = async (api: WorkspaceClient, id: string): Promise<Invoice> => {
      const response = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `f-${id}` });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.data;
    };

    it("freezes the invoice's own payment means, else the account's of its first type, with payee, preceding invoice and both parties; later edits reach none of it", async () => {
      const api = workspaceClient(harness.service);
      const seed = catalogSeeder(harness, api.workspaceId);
      await patchAccount(api, {
        ...SELLER,
        trading_name: 'Acme Studio',
        registration_id: 'HRB 12345',
        registration_id_scheme: '0088',
        legal_info: 'Amtsgericht Köln',
        tax_representative: { name: 'Steuervertretung AG', tax_id: 'DE111222333', address: { line1: 'Ring 1', city: 'Wien', postal_code: '1010', country: 'AT' } },
        payment_means: [
          { type: 'credit_transfer', iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', account_name: 'Seller GmbH', information: 'SEPA credit transfer' },
          { type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' },
          { type: 'credit_transfer', iban: 'DE02120300000000202051' },
        ],
      });
      const buyer = await seed.customer({ name: 'Großmarkt eG', buyer_reference: '991-12345-67', identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Kreditorenbuchhaltung', address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' } });
      const draft = async (body: Record<string, unknown>): Promise<Invoice> =>
        (await api.call('POST', '/api/v1/invoices', { customer: buyer.id, items: ITEMS, days_until_due: 30, ...body }, { 'x-idempotency-key': randomUUID() })).body.data;

      const fromAccount = await finalize(api, (await draft({ payee: { name: 'Factoring GmbH', identifier: 'FG-77' }, preceding_invoice: { number: 'INV/2026/0007', issue_date: '2026-10-01' } })).id);
      expect(fromAccount.payment_means).toEqual([TRANSFER, SECOND_TRANSFER]);
      expect(fromAccount).toMatchObject({ payee: { name: 'Factoring GmbH', identifier: 'FG-77', legal_registration_id: null }, preceding_invoice: { number: 'INV/2026/0007', issue_date: '2026-10-01' } });
      expect(fromAccount.business_snapshot).toMatchObject({
        trading_name: 'Acme Studio', registration_id: 'HRB 12345', registration_id_scheme: '0088', legal_info: 'Amtsgericht Köln', tax_representative: REPRESENTATIVE,
        payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Seller GmbH' },
      });
      expect(fromAccount.customer_snapshot).toMatchObject({ identifier: '4000001000005', identifier_scheme: '0088', contact_name: 'Kreditorenbuchhaltung' });
      expect(fromAccount.einvoice).toEqual({ en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } });

      const own = await finalize(api, (await draft({ payment_means: [{ type: 'sepa_direct_debit', mandate_reference: 'M-2026-7', creditor_id: 'DE98ZZZ09999999999', debited_iban: 'DE02120300000000202051' }] })).id);
      expect(own.payment_means).toEqual([DEBIT]);

      // A direct debit without the creditor id and the debited account: XRechnung names both.
      const lacking = await finalize(api, (await draft({ payment_means: [{ type: 'sepa_direct_debit', mandate_reference: 'M-1' }] })).id);
      expect(lacking.einvoice?.en16931.ready).toBe(true);
      expect(lacking.einvoice?.xrechnung.missing.map((entry) => [entry.path, entry.rule])).toEqual([
        ['payment_means.0.creditor_id', 'BR-DE-30'],
        ['payment_means.0.debited_iban', 'BR-DE-31'],
      ]);

      // A card first on the account: invoices without their own take the account's cards.
      await patchAccount(api, { payment_means: [{ type: 'card', card_last4: '4242', card_holder: 'Erika Mustermann' }, { type: 'credit_transfer', iban: 'DE89370400440532013000' }] });
      const byCard = await finalize(api, (await draft({})).id);
      expect(byCard.payment_means).toEqual([CARD]);

      await patchAccount(api, { trading_name: 'Renamed', registration_id: 'HRB 1', legal_info: null, tax_representative: null, payment_means: [] });
      await seed.updateCustomer(buyer.id, { identifier: 'GM-17', identifier_scheme: null, contact_name: 'Frau Weber' });
      for (const finalized of [fromAccount, own, lacking, byCard]) expect((await api.call('GET', `/api/v1/invoices/${finalized.id}`)).body.data).toEqual(finalized);
      expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true, invoices_checked: 4 });
    });

    it('freezes no payment means when neither the invoice nor the account names one: XRechnung then lacks them (BR-DE-1)', async () => {
      const api = workspaceClient(harness.service);
      await patchAccount(api, SELLER);
      const buyer = await catalogSeeder(harness, api.workspaceId).customer({ buyer_reference: '991-12345-67', address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' } });
      const created = await api.call('POST', '/api/v1/invoices', { customer: buyer.id, items: ITEMS, days_until_due: 30 }, { 'x-idempotency-key': randomUUID() });
      const sut = await finalize(api, created.body.data.id);
      expect(sut.payment_means).toEqual([]);
      expect(sut.einvoice?.xrechnung.missing.map((entry) => [entry.path, entry.rule])).toEqual([['payment_means', 'BR-DE-1']]);
    });
  });
});

describe('the migration that moves payment_account into payment_means', () => {
  const WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697887';
  const BARE_WORKSPACE = '0190f3e2-c1b2-7a8e-9d1f-3c4b5a697888';
  const FINALIZED = '0190f3e2-c1b2-7a8e-9d1f-000000000001';
  const DRAFT = '0190f3e2-c1b2-7a8e-9d1f-000000000002';
  const account = { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Seller GmbH' };
  let database: TestDatabase;
  let orm: Orm;

  // An account and invoices saved before the list existed: the payment account on the account and in the finalized invoice's snapshot.
  beforeAll(async () => {
    database = await createTestDatabase('billing_payment_means');
    orm = await openBillingDatabase(database.url, 2);
    const sql = orm.em.getConnection();
    await sql.execute(`create schema if not exists ${BILLING_SCHEMA}`);
    await orm.migrator.up({ to: 'Migration20270140100000DocumentLanguage' });
    await sql.execute(
      `insert into billing.accounts (workspace_id, address, default_currency, timezone, number_format, payment_account, created_at, updated_at)
       values (?, '{}', 'EUR', 'UTC', 'INV/{YYYY}/{SEQ:4}', ?, now(), now()), (?, '{}', 'EUR', 'UTC', 'INV/{YYYY}/{SEQ:4}', null, now(), now())`,
      [WORKSPACE, JSON.stringify(account), BARE_WORKSPACE],
    );
    const invoice = `insert into billing.invoices (id, workspace_id, status, customer_id, customer_name, currency, collection_method, issue_date,
        subtotal, discount_total, taxable_amount, tax_total, total, amount_due, amount_paid, number, number_sequence, finalized_at, business_snapshot, created_at, updated_at)
      values (?, ?, ?, ?, 'Müller', 'EUR', 'send_invoice', '2026-11-01', 0, 0, 0, 0, 0, 0, 0, ?, ?, ?, ?, now(), now())`;
    await sql.execute(invoice, [FINALIZED, WORKSPACE, 'open', randomUUID(), 'INV-1', 1, '2026-11-01T10:00:00.000Z', JSON.stringify({ business_name: 'Seller GmbH', payment_account: account })]);
    await sql.execute(invoice, [DRAFT, WORKSPACE, 'draft', randomUUID(), null, null, null, null]);
    await migrateDatabase(orm, BILLING_SCHEMA, database.url);
  });
  afterAll(async () => {
    await orm?.close();
    await database?.drop();
  });

  it("makes each account's payment account the one entry of its payment_means, and a finalized invoice's the payment means it froze", async () => {
    const sql = orm.em.getConnection();
    const transfer = { ...NULLS, type: 'credit_transfer', iban: account.iban, bic: account.bic, account_name: account.name };
    expect(await sql.execute('select workspace_id, payment_means from billing.accounts order by workspace_id')).toEqual([
      { workspace_id: WORKSPACE, payment_means: [transfer] },
      { workspace_id: BARE_WORKSPACE, payment_means: [] },
    ]);
    expect(await sql.execute('select id, payment_means, payee, preceding_invoice from billing.invoices order by id')).toEqual([
      { id: FINALIZED, payment_means: [transfer], payee: null, preceding_invoice: null },
      { id: DRAFT, payment_means: [], payee: null, preceding_invoice: null },
    ]);
  });
});
