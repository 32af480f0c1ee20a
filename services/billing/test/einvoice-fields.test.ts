import { parsePublicId, type Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chainHashOf, finalizedDocument, canonicalJson, GENESIS_CHAIN, sha256Hex } from '../src/modules/numbering/invoice-integrity.domain.ts';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

/** Issue #12 part A: the data EN 16931 e-invoices need, totals per VAT category, readiness. */
describe('e-invoice fields', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let customer: { id: string };

  const create = (body: Record<string, unknown>) => api.call('POST', '/api/v1/invoices', { customer: customer.id, ...body }, { 'x-idempotency-key': `k-${Math.random()}` });
  const draft = async (body: Record<string, unknown>): Promise<Invoice> => {
    const response = await create(body);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  };
  const finalize = async (id: string): Promise<Invoice> => {
    const response = await api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, { 'x-idempotency-key': `f-${id}` });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data;
  };
  const SELLER = {
    business_name: 'Seller GmbH',
    email: 'invoices@seller.example',
    address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
    tax_id: 'DE123456789',
    default_currency: 'EUR',
  };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    customer = await seed.customer({ address: { line1: 'Straße 5', city: 'Köln', postal_code: '50667', country: 'DE' } });
    expect((await api.call('PATCH', '/api/v1/account', SELLER)).status).toBe(200);
  });
  afterAll(async () => {
    await harness?.close();
  });

  describe('account', () => {
    it('keeps the e-invoice fields: IBAN without spaces, uppercase BIC and scheme; null removes the payment account', async () => {
      const other = workspaceClient(harness.service);
      const patched = await other.call('PATCH', '/api/v1/account', {
        phone: ' +49 30 123456 ',
        contact_name: 'Accounts',
        electronic_address: 'DE123456789',
        electronic_address_scheme: '9930',
        payment_account: { iban: 'de89 3704 0044 0532 0130 00', bic: 'cobadeffxxx', name: 'Seller GmbH' },
        pdf_format: 'facturx',
      });
      expect(patched.status, JSON.stringify(patched.body)).toBe(200);
      expect(patched.body.data).toMatchObject({
        phone: '+49 30 123456',
        contact_name: 'Accounts',
        electronic_address: 'DE123456789',
        electronic_address_scheme: '9930',
        payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFXXX', name: 'Seller GmbH' },
        pdf_format: 'facturx',
      });
      expect((await other.call('GET', '/api/v1/account')).body.data).toEqual(patched.body.data);
      const cleared = await other.call('PATCH', '/api/v1/account', { payment_account: null, phone: '', electronic_address: null });
      expect(cleared.body.data).toMatchObject({ payment_account: null, phone: null, electronic_address: null, electronic_address_scheme: '9930', pdf_format: 'facturx' });
    });

    it.each([
      ['an IBAN whose check digits fail mod 97', { payment_account: { iban: 'DE88 3704 0044 0532 0130 00' } }, 'payment_account.iban'],
      ['an IBAN of the wrong shape', { payment_account: { iban: '12345' } }, 'payment_account.iban'],
      ['a payment account without IBAN', { payment_account: { bic: 'COBADEFFXXX' } }, 'payment_account.iban'],
      ['a BIC of 9 characters', { payment_account: { iban: 'DE89370400440532013000', bic: 'COBADEFFX' } }, 'payment_account.bic'],
      ['a scheme that is no EAS code', { electronic_address_scheme: 'XY' }, 'electronic_address_scheme'],
      ['an electronic address that is no email, without a scheme', { electronic_address: '991-12345-67' }, 'electronic_address'],
      ['a pdf_format other than standard or facturx', { pdf_format: 'zugferd' }, 'pdf_format'],
    ])('refuses %s (400) and changes nothing', async (_name, body, path) => {
      const before = (await api.call('GET', '/api/v1/account')).body.data;
      const response = await api.call('PATCH', '/api/v1/account', body);
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
      expect((await api.call('GET', '/api/v1/account')).body.data).toEqual(before);
    });
  });

  describe('invoices and lines', () => {
    it('keeps the fields sent, defaults the rest, and PATCH changes them', async () => {
      const sut = await draft({
        buyer_reference: ' 991-12345-67 ',
        purchase_order: 'PO-7',
        delivery_date: '2026-11-20',
        items: [
          { description: 'Hours', unit_amount: 10_000, quantity: 3, tax_rate: 19, unit_code: 'hur' },
          { description: 'Export', unit_amount: 5_000, tax_category: 'G', tax_exemption_reason: 'Export outside the EU' },
          { description: 'Postage', unit_amount: 500 },
        ],
      });
      expect(sut).toMatchObject({ buyer_reference: '991-12345-67', purchase_order: 'PO-7', delivery_date: '2026-11-20' });
      // The draft's readiness is that of the draft finalized now: its buyer reference is all XRechnung needs of it.
      expect(sut.einvoice?.xrechnung.missing.map(({ path }) => path)).not.toContain('buyer_reference');
      expect(sut.lines.data.map(({ unit_code, tax_category, tax_exemption_reason }) => ({ unit_code, tax_category, tax_exemption_reason }))).toEqual([
        { unit_code: 'HUR', tax_category: 'S', tax_exemption_reason: null },
        { unit_code: 'C62', tax_category: 'G', tax_exemption_reason: 'Export outside the EU' },
        { unit_code: 'C62', tax_category: 'Z', tax_exemption_reason: null },
      ]);
      expect(sut.tax_breakdown).toEqual([
        { tax_category: 'S', tax_rate: 19, taxable_amount: 30_000, tax: 5_700, tax_exemption_reason: null },
        { tax_category: 'Z', tax_rate: 0, taxable_amount: 500, tax: 0, tax_exemption_reason: null },
        { tax_category: 'G', tax_rate: 0, taxable_amount: 5_000, tax: 0, tax_exemption_reason: 'Export outside the EU' },
      ]);
      const patched = await api.call('PATCH', `/api/v1/invoices/${sut.id}`, { buyer_reference: '', purchase_order: 'PO-8', delivery_date: null });
      expect(patched.body.data).toMatchObject({ buyer_reference: null, purchase_order: 'PO-8', delivery_date: null });
      expect(patched.body.data.einvoice.xrechnung.missing).toContainEqual(expect.objectContaining({ path: 'buyer_reference', rule: 'BR-DE-15' }));
      expect((await api.call('GET', `/api/v1/invoices/${sut.id}`)).body.data).toEqual(patched.body.data);
    });

    it.each([
      ['S with rate 0', { tax_category: 'S' }, 'items.0.tax_category'],
      ['Z with a rate above 0', { tax_rate: 7, tax_category: 'Z' }, 'items.0.tax_category'],
      ['AE without exemption reason', { tax_category: 'AE' }, 'items.0.tax_exemption_reason'],
      ['E without exemption reason', { tax_category: 'E' }, 'items.0.tax_exemption_reason'],
      ['K with a rate above 0', { tax_rate: 19, tax_category: 'K', tax_exemption_reason: 'Intra-community supply' }, 'items.0.tax_category'],
      ['an exemption reason on S', { tax_rate: 19, tax_category: 'S', tax_exemption_reason: 'none' }, 'items.0.tax_exemption_reason'],
      ['an exemption reason on a default Z line', { tax_exemption_reason: 'none' }, 'items.0.tax_exemption_reason'],
      ['an unknown category', { tax_category: 'X' }, 'items.0.tax_category'],
      ['a unit code that is no Rec 20 code', { unit_code: 'hours' }, 'items.0.unit_code'],
    ])('refuses a line with %s (400)', async (_name, line, path) => {
      const response = await create({ items: [{ description: 'x', unit_amount: 100, ...line }] });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    });

    it.each([
      ['buyer_reference', { buyer_reference: 'x'.repeat(201) }],
      ['purchase_order', { purchase_order: 'x'.repeat(201) }],
      ['delivery_date', { delivery_date: '2026-13-01' }],
    ])('refuses an invalid %s (400)', async (path, body) => {
      const response = await create({ items: [{ description: 'x', unit_amount: 100 }], ...body });
      expect(response.status).toBe(400);
      expect(response.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    });

    it("checks a catalog line's category against its price's rate", async () => {
      const product = await seed.product();
      const price = await seed.price(product.id, { tax_rate: 19 });
      const response = await create({ items: [{ price: price.id, tax_category: 'Z' }] });
      expect(response.status).toBe(400);
      expect(response.body.errors).toEqual([expect.objectContaining({ path: 'items.0.tax_category' })]);
      expect((await draft({ items: [{ price: price.id }] })).lines.data[0]).toMatchObject({ tax_category: 'S', tax_rate: 19 });
    });

    it('taxes per category and rate, shared over the lines: Σ line tax = tax_total = Σ breakdown', async () => {
      const sut = await draft({ items: [1, 2, 3].map(() => ({ description: 'Cent', unit_amount: 1, tax_rate: 19 })) });
      expect(sut.lines.data.map((line) => line.tax)).toEqual([1, 0, 0]);
      expect(sut).toMatchObject({ tax_total: 1, total: 4, tax_breakdown: [{ tax_category: 'S', tax_rate: 19, taxable_amount: 3, tax: 1 }] });
    });
  });

  describe('finalization', () => {
    it('freezes what an e-invoice needs; defaults buyer reference and delivery date; readiness names each missing rule', async () => {
      const buyer = await seed.customer({
        name: 'Stadt Köln',
        email: 'rechnung@koeln.example',
        buyer_reference: '991-12345-67',
        address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' },
      });
      const response = await api.call('POST', '/api/v1/invoices', { customer: buyer.id, items: [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }], days_until_due: 30 }, { 'x-idempotency-key': 'fin-1' });
      const sut = await finalize(response.body.data.id);
      expect(sut).toMatchObject({ buyer_reference: '991-12345-67', delivery_date: sut.issue_date });
      expect(sut.customer_snapshot).toMatchObject({ electronic_address: 'rechnung@koeln.example', electronic_address_scheme: 'EM', buyer_reference: '991-12345-67' });
      expect(sut.business_snapshot).toMatchObject({ tax_id: 'DE123456789', electronic_address: 'invoices@seller.example', electronic_address_scheme: 'EM', phone: null, payment_account: null });
      expect(sut.einvoice?.en16931).toEqual({ ready: true, missing: [] });
      expect(sut.einvoice?.xrechnung.ready).toBe(false);
      expect(sut.einvoice?.xrechnung.missing.map((entry) => [entry.path, entry.rule])).toEqual([
        ['payment_means', 'BR-DE-1'],
        ['business_snapshot.contact_name', 'BR-DE-5'],
        ['business_snapshot.phone', 'BR-DE-6'],
      ]);

      // Later edits to the account and customer never reach the finalized invoice.
      await api.call('PATCH', '/api/v1/account', { phone: '+49 30 1', contact_name: 'AR', payment_account: { iban: 'DE89370400440532013000' } });
      await seed.updateCustomer(buyer.id, { buyer_reference: 'changed', electronic_address: 'new@koeln.example' });
      const read = (await api.call('GET', `/api/v1/invoices/${sut.id}`)).body.data;
      expect(read).toEqual(sut);

      const next = await api.call('POST', '/api/v1/invoices', { customer: buyer.id, items: [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }], days_until_due: 30 }, { 'x-idempotency-key': 'fin-2' });
      const ready = await finalize(next.body.data.id);
      expect(ready.business_snapshot).toMatchObject({ phone: '+49 30 1', contact_name: 'AR', payment_account: { iban: 'DE89370400440532013000', bic: null, name: null } });
      expect(ready.einvoice).toEqual({ en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } });
      expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
    });

    it('prices a draft from before the per-category rule again when it is finalized', async () => {
      const sut = await draft({ items: [1, 2, 3].map(() => ({ description: 'Cent', unit_amount: 1, tax_rate: 19 })) });
      const id = parsePublicId('invoice', sut.id);
      // As the per-line rule priced it: 0.19 → 0 on each line.
      await harness.sql('update billing.invoice_lines set tax = 0 where invoice_id = ?', [id]);
      await harness.sql('update billing.invoices set tax_total = 0, total = 3 where id = ?', [id]);
      const finalized = await finalize(sut.id);
      expect(finalized).toMatchObject({ tax_total: 1, total: 4 });
      expect(finalized.lines.data.map((line) => line.tax)).toEqual([1, 0, 0]);
      expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
    });
  });

  it('keeps an invoice finalized under the per-line rule (document version 1) as it was: totals, hash and chain verify', async () => {
    const own = workspaceClient(harness.service);
    const ownSeed = catalogSeeder(harness, own.workspaceId);
    const buyer = await ownSeed.customer();
    const created = await own.call('POST', '/api/v1/invoices', { customer: buyer.id, items: [1, 2, 3].map(() => ({ description: 'Cent', unit_amount: 1, tax_rate: 19 })) }, { 'x-idempotency-key': 'old-1' });
    const finalized = await own.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'old-f' });
    const id = parsePublicId('invoice', finalized.body.data.id);

    // Make it what the code before issue #12 stored: per-line taxes (0.19 → 0 on each line),
    // snapshots without the new keys, no new invoice fields, hashed as version 1.
    await harness.sql('update billing.invoice_lines set tax = 0 where invoice_id = ?', [id]);
    await harness.sql(
      `update billing.invoices set tax_total = 0, total = 3, amount_due = 3, buyer_reference = null, delivery_date = null, snapshot_version = 1,
              business_snapshot = business_snapshot - 'phone' - 'contact_name' - 'electronic_address' - 'electronic_address_scheme' - 'payment_account',
              customer_snapshot = customer_snapshot - 'electronic_address' - 'electronic_address_scheme' - 'buyer_reference'
        where id = ?`,
      [id],
    );
    const old: Invoice = (await own.call('GET', `/api/v1/invoices/${finalized.body.data.id}`)).body.data;
    const snapshot = sha256Hex(canonicalJson(finalizedDocument(old, 1)));
    const chain = chainHashOf(GENESIS_CHAIN, snapshot);
    await harness.sql('update billing.invoices set snapshot_sha256 = ?, chain_sha256 = ? where id = ?', [snapshot, chain, id]);
    await harness.sql('update billing.number_series set last_chain_sha256 = ? where workspace_id = ?', [chain, own.workspaceId]);

    expect((await own.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true, invoices_checked: 1 });
    const read: Invoice = (await own.call('GET', `/api/v1/invoices/${finalized.body.data.id}`)).body.data;
    expect(read).toMatchObject({ tax_total: 0, total: 3, tax_breakdown: [{ tax_category: 'S', tax_rate: 19, taxable_amount: 3, tax: 0 }] });
    expect(read.business_snapshot).toMatchObject({ phone: null, payment_account: null });
    // The per-line taxes break BR-CO-17: the export refuses rather than writing an invalid document.
    expect(read.einvoice?.en16931.missing).toContainEqual(expect.objectContaining({ path: 'tax_breakdown.0.tax', rule: 'BR-CO-17' }));

    // An edit of what version 1 hashed is still found.
    await harness.sql('update billing.invoices set tax_total = 1 where id = ?', [id]);
    expect((await own.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: false, first_break: { reason: 'snapshot_mismatch' } });
  });
});
