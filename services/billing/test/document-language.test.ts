import type { Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

/** Issue #23: the document's language frozen at finalization, the service period, and finalize guarding the e-invoice. */
describe('language and legal contents of invoices', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let key = 0;

  const SELLER = {
    business_name: 'Seller GmbH',
    email: 'invoices@seller.example',
    address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
    tax_id: 'DE123456789',
    default_currency: 'EUR',
  };
  const ITEMS = [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }];
  const create = (body: Record<string, unknown>) => api.call('POST', '/api/v1/invoices', { items: ITEMS, ...body }, { 'x-idempotency-key': `c-${(key += 1)}` });
  const finalize = (id: string) => api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `f-${(key += 1)}` });
  const finalized = async (body: Record<string, unknown>): Promise<Invoice> => {
    const draft = await create(body);
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const response = await finalize(draft.body.data.id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    expect((await api.call('PATCH', '/api/v1/account', SELLER)).status).toBe(200);
  });
  afterAll(async () => {
    await harness?.close();
  });

  describe('the account', () => {
    it('writes in English and requires no e-invoice until told otherwise', async () => {
      const account = (await workspaceClient(harness.service).call('GET', '/api/v1/account')).body.data;
      expect(account).toMatchObject({ locale: 'en', einvoice_required: 'none' });
    });

    it('keeps a locale in its canonical form', async () => {
      const other = workspaceClient(harness.service);
      expect((await other.call('PATCH', '/api/v1/account', { locale: 'de-at', einvoice_required: 'xrechnung' })).body.data).toMatchObject({ locale: 'de-AT', einvoice_required: 'xrechnung' });
    });

    it.each([
      ['a language we do not write in', { locale: 'pt-BR' }, 'locale'],
      ['a locale that is no BCP 47 tag', { locale: 'de_DE' }, 'locale'],
      ['an unknown e-invoice profile', { einvoice_required: 'zugferd' }, 'einvoice_required'],
    ])('refuses %s (400) and changes nothing', async (_name, body, path) => {
      const before = (await api.call('GET', '/api/v1/account')).body.data;
      const response = await api.call('PATCH', '/api/v1/account', body);
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
      expect((await api.call('GET', '/api/v1/account')).body.data).toEqual(before);
    });
  });

  describe('the invoice', () => {
    it('freezes the customer\'s preferred locale at finalization, else the account\'s; later changes never reach it', async () => {
      const french = await seed.customer({ name: 'Dupont SARL', preferred_locale: 'fr-ch' });
      const plain = await seed.customer({ name: 'Plain Ltd' });
      const draft = (await create({ customer: french.id })).body.data as Invoice;
      expect(draft.locale).toBeNull();

      const forFrench = await finalized({ customer: french.id });
      const forPlain = await finalized({ customer: plain.id });
      expect([forFrench.locale, forPlain.locale]).toEqual(['fr-CH', 'en']);

      await api.call('PATCH', '/api/v1/account', { locale: 'nl' });
      await seed.updateCustomer(french.id, { preferred_locale: null });
      expect((await api.call('GET', `/api/v1/invoices/${forFrench.id}`)).body.data).toEqual(forFrench);
      expect((await finalized({ customer: french.id })).locale).toBe('nl');
      await api.call('PATCH', '/api/v1/account', { locale: 'en' });
    });

    it('keeps a service period instead of a delivery date, frozen and hashed', async () => {
      const customer = await seed.customer();
      const sut = await finalized({ customer: customer.id, service_period: { start: '2026-10-01', end: '2026-10-31' } });
      expect(sut).toMatchObject({ service_period: { start: '2026-10-01', end: '2026-10-31' }, delivery_date: null });
      const withDelivery = await finalized({ customer: customer.id });
      expect(withDelivery).toMatchObject({ service_period: null, delivery_date: withDelivery.issue_date });
      expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
    });

    it('lets a draft change or drop its service period, and refuses one that ends before it starts', async () => {
      const customer = await seed.customer();
      const draft = (await create({ customer: customer.id, service_period: { start: '2026-10-01', end: '2026-10-31' } })).body.data as Invoice;
      const backwards = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { service_period: { start: '2026-10-31', end: '2026-10-01' } });
      expect(backwards.status).toBe(400);
      expect(backwards.body.errors.map((error: { path: string }) => error.path)).toContain('service_period.end');
      const dropped = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { service_period: null });
      expect(dropped.body.data.service_period).toBeNull();
    });
  });

  describe('finalize with einvoice_required', () => {
    it('refuses a draft that could not become an XRechnung, listing what is missing, and takes no number', async () => {
      const strict = workspaceClient(harness.service);
      const strictSeed = catalogSeeder(harness, strict.workspaceId);
      await strict.call('PATCH', '/api/v1/account', { ...SELLER, einvoice_required: 'xrechnung' });
      const customer = await strictSeed.customer({ name: 'Stadt Köln', address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' } });
      const draft = await strict.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS }, { 'x-idempotency-key': 'strict-1' });

      const refused = await strict.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'strict-f1' });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
      expect(refused.body.errors.map((error: { path: string }) => error.path)).toEqual([
        'due_date',
        'buyer_reference',
        'payment_means',
        'business_snapshot.contact_name',
        'business_snapshot.phone',
      ]);
      expect((await strict.call('GET', `/api/v1/invoices/${draft.body.data.id}`)).body.data).toMatchObject({ status: 'draft', number: null });

      await strict.call('PATCH', '/api/v1/account', { phone: '+49 30 1', contact_name: 'AR', payment_account: { iban: 'DE89370400440532013000' } });
      await strict.call('PATCH', `/api/v1/invoices/${draft.body.data.id}`, { buyer_reference: '991-12345-67', days_until_due: 30 });
      const accepted = await strict.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'strict-f2' });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.data.number).toMatch(/0001$/);
      expect(accepted.body.data.einvoice.xrechnung).toEqual({ ready: true, missing: [] });
    });

    it('with en16931 refuses what EN 16931 lacks, each entry naming its rule, and lets through what only XRechnung would need', async () => {
      const strict = workspaceClient(harness.service);
      const strictSeed = catalogSeeder(harness, strict.workspaceId);
      // No VAT identifier yet: a taxable line needs the seller's (BR-S-02).
      const { tax_id: _taxId, ...withoutTaxId } = SELLER;
      await strict.call('PATCH', '/api/v1/account', { ...withoutTaxId, einvoice_required: 'en16931' });
      const customer = await strictSeed.customer({ name: 'Stadt Köln', address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' } });
      const draft = await strict.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS, days_until_due: 30 }, { 'x-idempotency-key': 'en-1' });

      const refused = await strict.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'en-f1' });
      expect(refused.status).toBe(400);
      expect(refused.body.code).toBe('invalid_request');
      expect(refused.body.errors).toEqual([{ path: 'business_snapshot.tax_id', message: expect.stringMatching(/^BR-S-02: /) }]);
      expect((await strict.call('GET', `/api/v1/invoices/${draft.body.data.id}`)).body.data).toMatchObject({ status: 'draft', number: null });

      // Still no buyer reference and no seller phone: no XRechnung, but a valid EN 16931 invoice.
      await strict.call('PATCH', '/api/v1/account', { tax_id: 'DE123456789' });
      const accepted = await strict.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'en-f2' });
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.data.einvoice.en16931).toEqual({ ready: true, missing: [] });
      expect(accepted.body.data.einvoice.xrechnung.missing.map((entry: { path: string }) => entry.path)).toContain('buyer_reference');
    });
  });
});
