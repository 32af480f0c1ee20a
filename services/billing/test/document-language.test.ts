import type { Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';
import { startCountingProxy } from './support/counting-proxy.ts';

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

  describe("a draft's readiness, as finalize would freeze it now", () => {
    const COMPLETE_SELLER = { ...SELLER, phone: '+49 30 1', contact_name: 'AR', payment_account: { iban: 'DE89370400440532013000' } };
    const strictWorkspace = async (service = harness.service) => {
      const client = workspaceClient(service);
      expect((await client.call('PATCH', '/api/v1/account', { ...COMPLETE_SELLER, einvoice_required: 'xrechnung' })).status).toBe(200);
      return { client, seed: catalogSeeder(harness, client.workspaceId) };
    };
    const customerReads = (requests: string[]) => requests.filter((request) => request.startsWith('GET /api/v1/customers/')).length;

    it('shows what the customer lacks for XRechnung on create, PATCH, retrieve and list, what finalize refuses with, and ready once the customer is completed', async () => {
      const { client, seed: strictSeed } = await strictWorkspace();
      const customer = await strictSeed.customer({ name: 'Stadt Köln', address: { line1: 'Platz 2', city: 'Köln', country: 'DE' } });
      const created = await client.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS, days_until_due: 30 });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      const draft: Invoice = created.body.data;
      expect(draft.einvoice?.en16931).toEqual({ ready: true, missing: [] });
      expect(draft.einvoice?.xrechnung.ready).toBe(false);
      expect(draft.einvoice?.xrechnung.missing.map(({ path, rule }) => [path, rule])).toEqual([
        ['buyer_reference', 'BR-DE-15'],
        ['customer_snapshot.address.postal_code', 'BR-DE-9'],
      ]);
      // The draft itself is not frozen: no snapshots, no locale, no link.
      expect(draft).toMatchObject({ status: 'draft', customer_snapshot: null, business_snapshot: null, locale: null, public_url: null });

      const patched = await client.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'Danke' });
      expect(patched.body.data.einvoice).toEqual(draft.einvoice);
      expect((await client.call('GET', `/api/v1/invoices/${draft.id}`)).body.data.einvoice).toEqual(draft.einvoice);
      const listed = (await client.call('GET', '/api/v1/invoices')).body.data as Invoice[];
      expect(listed.find(({ id }) => id === draft.id)?.einvoice).toEqual(draft.einvoice);

      // Finalize refuses with exactly those entries.
      const refused = await client.call('POST', `/api/v1/invoices/${draft.id}/finalize`);
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual(draft.einvoice!.xrechnung.missing.map(({ path, message }) => ({ path, message })));

      // The customer completed in the catalog: the same draft, read again, is ready.
      await strictSeed.updateCustomer(customer.id, { address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' }, buyer_reference: '05315-12345-67' });
      const ready = (await client.call('GET', `/api/v1/invoices/${draft.id}`)).body.data as Invoice;
      expect(ready).toMatchObject({ status: 'draft', buyer_reference: null });
      expect(ready.einvoice).toEqual({ en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } });
      const accepted = await client.call('POST', `/api/v1/invoices/${draft.id}/finalize`);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
      expect(accepted.body.data).toMatchObject({ buyer_reference: '05315-12345-67', einvoice: ready.einvoice });
    });

    it('reads each customer of the drafts on a list page once, and none for finalized invoices', async () => {
      const catalog = await startCountingProxy(harness.catalog.url);
      try {
        const replica = await harness.start({ env: { CATALOG_URL: catalog.url } });
        const { client, seed: strictSeed } = await strictWorkspace(replica);
        const address = { line1: 'Straße 5', city: 'Köln', postal_code: '50667', country: 'DE' };
        const [first, second] = [await strictSeed.customer({ buyer_reference: 'A-1', address }), await strictSeed.customer({ name: 'Schmidt AG', address })];
        const draftOf = async (customer: string) => (await client.call('POST', '/api/v1/invoices', { customer, items: ITEMS, days_until_due: 30 })).body.data as Invoice;
        const drafts = [await draftOf(first.id), await draftOf(first.id), await draftOf(second.id), await draftOf(second.id), await draftOf(first.id)];
        const toFinalize = await draftOf(first.id);
        expect((await client.call('POST', `/api/v1/invoices/${toFinalize.id}/finalize`)).status).toBe(200);

        catalog.reset();
        const page = await client.call('GET', '/api/v1/invoices?limit=10');
        expect(page.status).toBe(200);
        expect(customerReads(catalog.requests())).toBe(2);
        const listed = page.body.data as Invoice[];
        expect(listed).toHaveLength(6);
        for (const draft of drafts) expect(listed.find(({ id }) => id === draft.id)?.einvoice).toEqual(draft.einvoice);
        expect(drafts.map(({ einvoice }) => einvoice?.xrechnung.ready)).toEqual([true, true, false, false, true]);

        catalog.reset();
        const open = await client.call('GET', '/api/v1/invoices?status=open');
        expect(open.body.data.map(({ id }: Invoice) => id)).toEqual([toFinalize.id]);
        expect(open.body.data[0].einvoice.xrechnung).toEqual({ ready: true, missing: [] });
        expect((await client.call('GET', `/api/v1/invoices/${toFinalize.id}`)).status).toBe(200);
        expect(customerReads(catalog.requests())).toBe(0);
      } finally {
        await catalog.close();
      }
    });

    it('reads a draft with einvoice null when the catalog cannot give its customer, and finalized invoices as before', async () => {
      const { client, seed: strictSeed } = await strictWorkspace();
      const customer = await strictSeed.customer({ buyer_reference: 'A-1', address: { line1: 'Straße 5', city: 'Köln', postal_code: '50667', country: 'DE' } });
      const draft = (await client.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS, days_until_due: 30 })).body.data as Invoice;
      const open = (await client.call('POST', `/api/v1/invoices/${(await client.call('POST', '/api/v1/invoices', { customer: customer.id, items: ITEMS, days_until_due: 30 })).body.data.id}/finalize`)).body.data as Invoice;
      expect(draft.einvoice?.xrechnung.ready).toBe(true);

      // A replica whose catalog does not answer (nothing listens there).
      const catalog = await startCountingProxy(harness.catalog.url);
      await catalog.close();
      const replica = await harness.start({ env: { CATALOG_URL: catalog.url } });
      const cut = workspaceClient(replica, client.workspaceId);

      const read = await cut.call('GET', `/api/v1/invoices/${draft.id}`);
      expect(read.status, JSON.stringify(read.body)).toBe(200);
      expect(read.body.data).toEqual({ ...draft, einvoice: null });
      const page = await cut.call('GET', '/api/v1/invoices');
      expect(page.status).toBe(200);
      expect(page.body.data.map(({ id, einvoice }: Invoice) => [id, einvoice])).toEqual([
        [open.id, open.einvoice],
        [draft.id, null],
      ]);
      const patched = await cut.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'later' });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.data).toMatchObject({ notes: 'later', einvoice: null });
      // Finalize needs the customer it freezes: unavailable, as before.
      expect((await cut.call('POST', `/api/v1/invoices/${draft.id}/finalize`)).status).toBe(503);
    });
  });
});
