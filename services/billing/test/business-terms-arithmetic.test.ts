import type { EventEnvelope } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

// Issue #25 items 1–2 (decisions.md, "EN 16931 business terms beyond the first set"): document-level
// allowances and charges, the prepaid amount, decimal quantities and prices, the tax currency and
// the line terms, through the routes on a real PostgreSQL.
describe('business terms: arithmetic and line terms', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: { id: string };
  let keys = 0;
  const keyed = () => ({ 'x-idempotency-key': `arith-${++keys}` });
  const create = (body: Record<string, unknown>) => api.call('POST', '/api/v1/invoices', { customer: customer.id, currency: 'EUR', ...body }, keyed());
  const finalize = (id: string) => api.call('POST', `/api/v1/invoices/${id}/finalize`, undefined, keyed());
  const read = async (id: string) => (await api.call('GET', `/api/v1/invoices/${id}`)).body.data;
  const eventTypesOf = async (id: string) =>
    (await harness.sql<{ envelope: EventEnvelope }>(`select envelope from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`, [id])).map(
      ({ envelope }) => envelope.type,
    );

  // 7.5 × 1500.5 = 11253.75 → 11254; 10000 − 10 % = 9000 (S 19 %); 5000 exempt with a VATEX code only.
  const items = [
    { description: 'Cable, per metre', quantity_decimal: '7.50', unit_amount_decimal: '1500.5', unit_code: 'MTR', tax_rate: 19, sku: 'CAB-1', standard_id: '4006381333931', standard_id_scheme: '0160', note: 'Cut to length' },
    { description: 'Installation', unit_amount: 10_000, tax_rate: 19, discount: { percent_off: 10 } },
    { description: 'Training', unit_amount: 5_000, tax_category: 'E', tax_exemption_reason_code: 'vatex-eu-132' },
  ];
  const allowances = [{ percent: 10, base_amount: 10_000, reason_code: '95', tax_rate: 19 }];
  const charges = [{ amount: 500, reason: 'Freight', reason_code: 'fc', tax_rate: 19 }];

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    customer = await catalogSeeder(harness, api.workspaceId).customer();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('creates a draft with every field, prices it exactly and adds it up: lines, groups, totals, tax currency', async () => {
    const created = await create({ items, allowances, charges, prepaid_amount: 1_000, tax_currency: 'huf', tax_exchange_rate: '391.2500' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const sut = created.body.data;
    const [cable, installation, training] = sut.lines.data;
    expect(cable).toMatchObject({
      quantity: 8,
      quantity_decimal: '7.5',
      unit_amount: 1501,
      unit_amount_decimal: '1500.5',
      price_base_quantity: '1',
      amount: 11_254,
      sku: 'CAB-1',
      standard_id: '4006381333931',
      standard_id_scheme: '0160',
      note: 'Cut to length',
      tax_exemption_reason_code: null,
    });
    expect(installation).toMatchObject({ quantity: 1, quantity_decimal: '1', unit_amount_decimal: '10000', discount_amount: 1_000, amount: 9_000 });
    expect(training).toMatchObject({ tax_category: 'E', tax_exemption_reason: null, tax_exemption_reason_code: 'VATEX-EU-132', tax: 0 });
    expect(sut.allowances).toEqual([{ amount: 1_000, percent: 10, base_amount: 10_000, reason: null, reason_code: '95', tax_category: 'S', tax_rate: 19 }]);
    expect(sut.charges).toEqual([{ amount: 500, percent: null, base_amount: null, reason: 'Freight', reason_code: 'FC', tax_category: 'S', tax_rate: 19 }]);
    // S 19 %: 11254 + 9000 − 1000 + 500 = 19754, taxed once: 3753.26 → 3753.
    expect(sut).toMatchObject({
      subtotal: 26_254,
      discount_total: 1_000,
      allowance_total: 1_000,
      charge_total: 500,
      taxable_amount: 24_754,
      tax_total: 3_753,
      total: 28_507,
      prepaid_amount: 1_000,
      amount_due: 0,
      tax_currency: 'HUF',
      tax_exchange_rate: '391.25',
      // 37.53 EUR × 391.25 = 14683.6125 HUF → 1468361 fillér.
      tax_total_in_tax_currency: 1_468_361,
    });
    expect(sut.tax_breakdown).toEqual([
      { tax_category: 'S', tax_rate: 19, taxable_amount: 19_754, tax: 3_753, tax_exemption_reason: null },
      { tax_category: 'E', tax_rate: 0, taxable_amount: 5_000, tax: 0, tax_exemption_reason: null },
    ]);
    expect(sut.lines.data.reduce((sum: number, line: { tax: number }) => sum + line.tax, 0)).toBe(sut.tax_total);
    expect(cable.tax + installation.tax).toBe(3_753);
    // Stored exactly, and read back the same through every read path.
    expect(await read(sut.id)).toEqual(sut);
    const listed = (await api.call('GET', '/api/v1/invoices?limit=100')).body.data.find((invoice: { id: string }) => invoice.id === sut.id);
    expect(listed).toEqual(sut);
  });

  it('takes decimal quantities and a price base quantity on catalog lines, and a VATEX code for their exemption', async () => {
    const seed = catalogSeeder(harness, api.workspaceId);
    const product = await seed.product();
    const price = await seed.price(product.id, { unit_amount: 1_999, tax_rate: 0 });
    const created = await create({ items: [{ price: price.id, quantity_decimal: '250', price_base_quantity: '100', tax_category: 'E', tax_exemption_reason_code: 'VATEX-EU-132' }] });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    // 250 × 19.99 / 100 = 49.975 → 49.98
    expect(created.body.data.lines.data[0]).toMatchObject({ quantity: 250, quantity_decimal: '250', unit_amount: 1_999, unit_amount_decimal: '1999', price_base_quantity: '100', amount: 4_998 });
    const missing = await create({ items: [{ price: price.id, tax_category: 'E' }] });
    expect(missing.status).toBe(400);
    expect(missing.body.errors).toEqual([expect.objectContaining({ path: 'items.0.tax_exemption_reason' })]);
    const misplaced = await create({ items: [{ price: price.id, tax_category: 'Z', tax_exemption_reason_code: 'VATEX-EU-132' }] });
    expect(misplaced.status).toBe(400);
    expect(misplaced.body.errors).toEqual([expect.objectContaining({ path: 'items.0.tax_exemption_reason_code' })]);
    const misplacedAdHoc = await create({ items: [{ description: 'Taxed', unit_amount: 100, tax_rate: 19, tax_exemption_reason_code: 'VATEX-EU-132' }] });
    expect(misplacedAdHoc.status).toBe(400);
    expect(misplacedAdHoc.body.errors).toEqual([expect.objectContaining({ path: 'items.0.tax_exemption_reason_code' })]);
  });

  it.each([
    ['an allowance in a VAT group no line has', { allowances: [{ amount: 100, reason: 'Loyalty', tax_rate: 7 }] }, 'allowances.0.tax_rate'],
    ['an allowance of another category at a line rate', { allowances: [{ amount: 100, reason: 'Loyalty', tax_category: 'Z', tax_rate: 0 }] }, 'allowances.0.tax_rate'],
    ['allowances that take a group below 0', { allowances: [{ amount: 30_000, reason: 'Too much', tax_rate: 19 }] }, 'allowances.0.amount'],
    ['a charge code outside UNTDID 7161', { charges: [{ amount: 100, reason_code: 'QQ', tax_rate: 19 }] }, 'charges.0.reason_code'],
    ['a prepaid amount above the total', { prepaid_amount: 999_999 }, 'prepaid_amount'],
    ['a tax currency without its rate', { tax_currency: 'HUF' }, 'tax_exchange_rate'],
    ['a rate without a tax currency', { tax_exchange_rate: '1.5' }, 'tax_exchange_rate'],
    ['the invoice currency as tax currency', { tax_currency: 'EUR', tax_exchange_rate: '1' }, 'tax_currency'],
  ])('refuses %s with a 400 naming the field, on create and on PATCH, changing nothing', async (_name, fields, path) => {
    const refused = await create({ items, ...fields });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path })]);

    const draft = (await create({ items, allowances, charges, prepaid_amount: 1_000 })).body.data;
    const patched = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, fields);
    expect(patched.status, JSON.stringify(patched.body)).toBe(400);
    expect(patched.body.errors).toEqual([expect.objectContaining({ path })]);
    expect(await read(draft.id)).toEqual(draft);
  });

  it('PATCH replaces the lists, checks the draft as it results, and removes the tax currency with its rate', async () => {
    const draft = (await create({ items, allowances, charges, prepaid_amount: 1_000, tax_currency: 'HUF', tax_exchange_rate: '391.25' })).body.data;
    const noRate = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { tax_exchange_rate: null });
    expect(noRate.status).toBe(400);
    expect(noRate.body.errors).toEqual([expect.objectContaining({ path: 'tax_exchange_rate' })]);

    const cleared = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { allowances: [], charges: [{ percent: 2.5, base_amount: 20_254, reason: 'Insurance', tax_rate: 19 }], tax_currency: null });
    expect(cleared.status, JSON.stringify(cleared.body)).toBe(200);
    // 2.5 % of 20254 = 506.35 → 506; S 19 %: 20254 + 506 = 20760 → 3944.4 → 3944.
    expect(cleared.body.data).toMatchObject({ allowances: [], allowance_total: 0, charge_total: 506, taxable_amount: 25_760, tax_total: 3_944, total: 29_704, tax_currency: null, tax_exchange_rate: null, tax_total_in_tax_currency: null });
    expect(cleared.body.data.charges[0]).toMatchObject({ amount: 506, percent: 2.5, base_amount: 20_254 });

    // Items that drop the allowances' group are refused while the allowances stay.
    const withAllowance = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { allowances: [{ amount: 100, reason: 'Loyalty', tax_rate: 19 }] });
    expect(withAllowance.status).toBe(200);
    const dropped = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { items: [{ description: 'Other', unit_amount: 100, tax_rate: 7 }] });
    expect(dropped.status).toBe(400);
    expect(dropped.body.errors).toEqual([expect.objectContaining({ path: 'allowances.0.tax_rate' })]);
    expect(await read(draft.id)).toEqual(withAllowance.body.data);

    // A PATCH of the values the draft has changes nothing.
    const same = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { allowances: [{ amount: 100, reason: 'Loyalty', tax_rate: 19 }], prepaid_amount: 1_000 });
    expect(same.body.data.updated_at).toBe(withAllowance.body.data.updated_at);
  });

  it('finalizes with amount_due = total − prepaid_amount, freezes every field, and hashes them', async () => {
    const draft = (await create({ items, allowances, charges, prepaid_amount: 1_000, tax_currency: 'HUF', tax_exchange_rate: '391.25' })).body.data;
    const finalized = await finalize(draft.id);
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    const sut = finalized.body.data;
    expect(sut).toMatchObject({ status: 'open', total: 28_507, prepaid_amount: 1_000, amount_due: 27_507, amount_remaining: 27_507, tax_total_in_tax_currency: 1_468_361 });
    // Each VAT group of the breakdown (allowances and charges included) is taxed as EN 16931 checks it.
    expect(sut.einvoice.en16931.missing.map((missing: { rule: string }) => missing.rule)).not.toContain('BR-CO-17');
    const { status: _s, number: _n, finalized_at: _f, updated_at: _u, amount_due: _d, amount_remaining: _r, ...frozen } = sut;
    const { status: _ds, number: _dn, finalized_at: _df, updated_at: _du, amount_due: _dd, amount_remaining: _dr, ...asDrafted } = draft;
    for (const key of ['lines', 'allowances', 'charges', 'tax_breakdown', 'subtotal', 'taxable_amount', 'tax_total', 'total', 'tax_currency', 'tax_exchange_rate'] as const) {
      expect(frozen[key]).toEqual(asDrafted[key]);
    }
    const patched = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { prepaid_amount: 0 });
    expect(patched.status).toBe(409);
    expect(await read(draft.id)).toEqual(sut);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
    // Tampering with a term hashed from version 4 on breaks the chain.
    const uuid = draft.id.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5');
    await harness.sql(`update billing.invoice_lines set sku = 'CAB-2' where invoice_id = ? and position = 0`, [uuid]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: false });
    await harness.sql(`update billing.invoice_lines set sku = 'CAB-1' where invoice_id = ? and position = 0`, [uuid]);
    await harness.sql(`update billing.invoices set allowances = '[]' where id = ?`, [uuid]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: false });
    await harness.sql(`update billing.invoices set allowances = ?::jsonb where id = ?`, [JSON.stringify(sut.allowances), uuid]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
  });

  it('a draft whose prepaid amount is its total is paid at finalization, and invoice.paid fires once', async () => {
    const draft = (await create({ items: [{ description: 'Deposit-covered work', unit_amount: 10_000, tax_rate: 19 }], prepaid_amount: 11_900 })).body.data;
    expect(draft).toMatchObject({ total: 11_900, prepaid_amount: 11_900, status: 'draft' });
    const finalized = await finalize(draft.id);
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body.data).toMatchObject({ status: 'paid', amount_due: 0, amount_paid: 0, amount_remaining: 0, paid_at: finalized.body.data.finalized_at });
    expect(finalized.body.data.number).toMatch(/^INV\//);
    const again = await finalize(draft.id);
    expect(again.status).toBe(409);
    const pay = await api.call('POST', `/api/v1/invoices/${draft.id}/pay`, undefined, keyed());
    expect(pay.status).toBe(409);
    expect(await eventTypesOf(draft.id)).toEqual(['billing.invoice.created', 'billing.invoice.finalized', 'billing.invoice.paid']);
    const timeline = (await api.call('GET', `/api/v1/invoices/${draft.id}/timeline`)).body.data.map((entry: { type: string }) => entry.type);
    expect(timeline).toEqual(['created', 'finalized', 'paid']);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true });
  });

  it('a prepaid amount below the total leaves the rest due, and payments settle the rest', async () => {
    const draft = (await create({ items: [{ description: 'Work', unit_amount: 10_000 }], prepaid_amount: 4_000 })).body.data;
    const open = (await finalize(draft.id)).body.data;
    expect(open).toMatchObject({ status: 'open', amount_due: 6_000, amount_remaining: 6_000 });
    const paid = await api.call('POST', `/api/v1/invoices/${draft.id}/pay`, undefined, keyed());
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'paid', amount_paid: 6_000 });
  });
});

describe('business terms: the largest amounts', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('stores a unit amount and a quantity of Number.MAX_SAFE_INTEGER exactly', async () => {
    const customer = await catalogSeeder(harness, api.workspaceId).customer();
    const max = Number.MAX_SAFE_INTEGER;
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'All of it', unit_amount: max }, { description: 'Many', quantity: max, unit_amount: 0 }] }, { 'x-idempotency-key': 'largest' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    expect(created.body.data.lines.data.map((line: { quantity_decimal: string; unit_amount_decimal: string }) => [line.quantity_decimal, line.unit_amount_decimal])).toEqual([
      ['1', String(max)],
      [String(max), '0'],
    ]);
  });
});
