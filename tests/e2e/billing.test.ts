import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog', 'billing'] });
});

afterAll(async () => {
  await system?.stop();
});

const key = () => ({ 'Idempotency-Key': randomUUID() });
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const today = () => new Date().toISOString().slice(0, 10);

/** A workspace with its business profile, a customer, and a catalog price in EUR. */
const workspace = async (scopes = 'all') => {
  const slug = `billing-${randomUUID().slice(0, 8)}`;
  const minted = await system.mintKey(slug, scopes);
  return { api: system.client(minted.key), minted, slug };
};

const seed = async (api: ApiClient) => {
  await api.PATCH('/api/v1/account', {
    body: {
      business_name: 'Acme Design Studio',
      address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'de' },
      tax_id: 'DE123456789',
      default_currency: 'EUR',
      payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00',
    },
  });
  const customer = (await api.POST('/api/v1/customers', { body: { name: 'Müller & Söhne GmbH', email: 'ap@mueller.example', tax_id: 'DE987654321', address: { city: 'Düsseldorf', country: 'DE' } } })).data!.data;
  const product = (await api.POST('/api/v1/products', { body: { name: 'Design workshop' } })).data!.data;
  const price = (await api.POST('/api/v1/prices', { body: { product: product.id, unit_amount: 150_000, currency: 'EUR', tax_rate: 19 } })).data!.data;
  return { customer, product, price };
};

describe('invoices through the gateway', () => {
  it('walks create → patch → finalize → pay, with every field the specification names', async () => {
    const { api, minted } = await workspace();
    const { customer, product, price } = await seed(api);

    const createKey = key();
    const body = {
      customer: customer.id,
      days_until_due: 30,
      notes: 'Thank you for your business',
      items: [
        { price: price.id, quantity: 2, discount: { percent_off: 12.5 } },
        { description: 'Travel expenses (flat)', unit_amount: 42_500, tax_rate: 7, discount: { amount_off: 2_500 } },
      ],
    };
    const created = await api.POST('/api/v1/invoices', { params: { header: createKey }, body });
    expect(created.response.status).toBe(201);
    const draft = created.data!.data;
    expect(draft).toMatchObject({
      object: 'invoice',
      livemode: true,
      number: null,
      status: 'draft',
      customer: customer.id,
      currency: 'EUR',
      collection_method: 'send_invoice',
      issue_date: today(),
      days_until_due: 30,
      subtotal: 342_500,
      discount_total: 40_000,
      taxable_amount: 302_500,
      tax_total: 52_675,
      total: 355_175,
      amount_due: 0,
      amount_paid: 0,
      public_url_token: null,
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      void_reason: null,
      notes: 'Thank you for your business',
      footer: null,
    });
    expect(draft.id).toMatch(/^in_[0-9a-f]{32}$/);
    expect(draft.created_at).toMatch(ISO_MS);
    expect(draft.lines.data).toEqual([
      expect.objectContaining({ object: 'invoiceitem', livemode: true, price: price.id, product: product.id, description: 'Design workshop', quantity: 2, unit_amount: 150_000, discount_amount: 37_500, amount: 262_500, tax: 49_875 }),
      expect.objectContaining({ object: 'invoiceitem', livemode: true, price: null, product: null, description: 'Travel expenses (flat)', quantity: 1, unit_amount: 42_500, discount_amount: 2_500, amount: 40_000, tax: 2_800 }),
    ]);
    expect(draft.lines.data[0]!.id).toMatch(/^ii_[0-9a-f]{32}$/);

    const replay = await api.POST('/api/v1/invoices', { params: { header: createKey }, body });
    expect(replay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.data).toEqual(created.data);
    expectProblem(await api.POST('/api/v1/invoices', { params: { header: createKey }, body: { ...body, notes: 'other' } }), 409, 'idempotency_key_reused');

    const patched = await api.PATCH('/api/v1/invoices/{id}', { params: { path: { id: draft.id } }, body: { due_date: '', footer: 'Payable within 30 days', items: [{ price: price.id }] } });
    expect(patched.response.status).toBe(200);
    expect(patched.data!.data).toMatchObject({ status: 'draft', number: null, due_date: null, footer: 'Payable within 30 days', notes: body.notes, total: 178_500 });
    expect(patched.data!.data.lines.data).toHaveLength(1);
    expect(patched.data!.data.updated_at >= draft.updated_at).toBe(true);

    const finalizeKey = key();
    const finalized = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: finalizeKey } });
    expect(finalized.response.status).toBe(200);
    const open = finalized.data!.data;
    expect(open).toMatchObject({
      number: `INV/${today().slice(0, 4)}/0001`,
      status: 'open',
      amount_due: 178_500,
      total: 178_500,
      customer_snapshot: { name: 'Müller & Söhne GmbH', tax_id: 'DE987654321', address: { city: 'Düsseldorf', country: 'DE' } },
      business_snapshot: { business_name: 'Acme Design Studio', tax_id: 'DE123456789', address: { line1: 'Hauptstraße 1', country: 'DE' } },
    });
    expect(open.public_url_token).toMatch(/^[A-Za-z0-9_-]{32,}$/);
    expect(open.public_url).toMatch(new RegExp(`/i/${open.public_url_token}$`));
    expect(open.finalized_at).toMatch(ISO_MS);
    expect(open.lines).toEqual(patched.data!.data.lines);

    const finalizeReplay = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: finalizeKey } });
    expect(finalizeReplay.response.headers.get('idempotent-replayed')).toBe('true');
    expect(finalizeReplay.data).toEqual(finalized.data);
    expectProblem(await api.PATCH('/api/v1/invoices/{id}', { params: { path: { id: draft.id } }, body: { notes: 'late' } }), 409, 'invalid_state');

    const paid = await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: draft.id }, header: key() }, body: { paid_on: today(), payment_reference: 'SEPA 2026-0001' } });
    expect(paid.response.status).toBe(200);
    expect(paid.data!.data).toMatchObject({ status: 'paid', number: open.number, total: 178_500, amount_due: 0, amount_paid: 178_500, payment_reference: 'SEPA 2026-0001', paid_at: `${today()}T00:00:00.000Z` });
    expect(paid.data!.data).not.toHaveProperty('lines');
    expectProblem(await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: draft.id }, header: key() } }), 409, 'invalid_state');
    expectProblem(await api.POST('/api/v1/invoices/{id}/void', { params: { path: { id: draft.id }, header: key() } }), 409, 'invalid_state');

    const timeline = await api.GET('/api/v1/invoices/{id}/timeline', { params: { path: { id: draft.id } } });
    expect(timeline.data!.data.map((entry) => entry.type)).toEqual(['created', 'updated', 'finalized', 'paid']);
    expect(new Set(timeline.data!.data.map((entry) => entry.key_id))).toEqual(new Set([minted.key_id]));

    const listed = await api.GET('/api/v1/invoices', { params: { query: { status: 'paid', q: 'müller' } } });
    expect(listed.data!.data.map((invoice) => invoice.id)).toEqual([draft.id]);
    const numbering = await api.GET('/api/v1/numbering');
    expect(numbering.data!.data).toMatchObject({ gap_free: true, series: [{ issued: 1, last_number: open.number }] });
    expect((await api.GET('/api/v1/numbering/verify')).data!.data).toMatchObject({ verified: true, invoices_checked: 1 });
  });

  it('walks create → finalize → void: number kept, amount_due 0, reason stored, paid_at null', async () => {
    const { api } = await workspace();
    const { customer } = await seed(api);
    const created = await api.POST('/api/v1/invoices', { params: { header: key() }, body: { customer: customer.id, items: [{ description: 'Retainer', unit_amount: 100_000 }] } });
    const id = created.data!.data.id;
    const open = (await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: key() } })).data!.data;
    const voided = await api.POST('/api/v1/invoices/{id}/void', { params: { path: { id }, header: key() }, body: { reason: 'Issued to the wrong entity' } });
    expect(voided.response.status).toBe(200);
    expect(voided.data!.data).toMatchObject({ status: 'void', number: open.number, amount_due: 0, void_reason: 'Issued to the wrong entity', paid_at: null, total: 100_000 });
    expect(voided.data!.data.voided_at).toMatch(ISO_MS);
    expect(voided.data!.data).not.toHaveProperty('lines');
    expectProblem(await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: key() } }), 409, 'invalid_state');
    expectProblem(await api.DELETE('/api/v1/invoices/{id}', { params: { path: { id } } }), 409, 'invalid_state');
    const read = await api.GET('/api/v1/invoices/{id}', { params: { path: { id } } });
    expect(read.data!.data).toMatchObject({ status: 'void', number: open.number, void_reason: 'Issued to the wrong entity' });
    const next = await api.POST('/api/v1/invoices', { params: { header: key() }, body: { customer: customer.id, items: [{ description: 'Retainer', unit_amount: 100_000 }] } });
    const renumbered = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: next.data!.data.id }, header: key() } });
    expect(renumbered.data!.data.number).toBe(`INV/${today().slice(0, 4)}/0002`);
  });

  it('demands an Idempotency-Key on create, finalize, pay and void (428), and the scope of each (403)', async () => {
    const { api, minted, slug } = await workspace();
    const { customer } = await seed(api);
    const body = { customer: customer.id, items: [{ description: 'x', unit_amount: 1 }] };
    const id = (await api.POST('/api/v1/invoices', { params: { header: key() }, body })).data!.data.id;
    const withoutKey = (path: string, payload?: unknown) =>
      fetch(`${system.gatewayUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${minted.key}`, ...(payload === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(payload === undefined ? {} : { body: JSON.stringify(payload) }),
      });
    for (const [path, payload] of [['/api/v1/invoices', body], [`/api/v1/invoices/${id}/finalize`], [`/api/v1/invoices/${id}/pay`], [`/api/v1/invoices/${id}/void`]] as const) {
      const response = await withoutKey(path, payload);
      expect(response.status, path).toBe(428);
      expect(await response.json()).toMatchObject({ code: 'idempotency_key_required' });
    }
    expect((await api.GET('/api/v1/invoices/{id}', { params: { path: { id } } })).data!.data.status).toBe('draft');

    const clerk = system.client((await system.mintKey(slug, 'invoices:read,invoices:write')).key);
    expectProblem(await clerk.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: key() } }), 403, 'forbidden');
    expectProblem(await clerk.POST('/api/v1/invoices/{id}/void', { params: { path: { id }, header: key() } }), 403, 'forbidden');
    expectProblem(await clerk.POST('/api/v1/invoices/{id}/pay', { params: { path: { id }, header: key() } }), 403, 'forbidden');
    expectProblem(await clerk.GET('/api/v1/account'), 403, 'forbidden');
    expect((await clerk.GET('/api/v1/invoices/{id}', { params: { path: { id } } })).response.status).toBe(200);
    expectProblem(await system.client().GET('/api/v1/invoices'), 401, 'unauthenticated');

    const stranger = (await workspace()).api;
    expectProblem(await stranger.GET('/api/v1/invoices/{id}', { params: { path: { id } } }), 404, 'not_found');
  });
});
