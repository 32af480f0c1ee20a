import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

describe('drafts', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let customer: { id: string; name: string };
  let product: { id: string; name: string };
  let price: { id: string };

  const adHoc = (overrides: Record<string, unknown> = {}) => ({ description: 'Travel', unit_amount: 10_000, ...overrides });
  const createDraft = async (body: Record<string, unknown> = {}, client = api) => {
    const response = await client.call('POST', '/api/v1/invoices', { customer: customer.id, items: [adHoc()], ...body });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    customer = await seed.customer();
    await api.call('PATCH', '/api/v1/account', { default_currency: 'EUR' });
    product = await seed.product({ name: 'Design workshop' });
    price = await seed.price(product.id, { unit_amount: 50_000, currency: 'EUR', tax_rate: 19 });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('creates a draft: catalog lines inherit amount, tax rate and product name; totals follow decisions.md', async () => {
    const response = await api.call('POST', '/api/v1/invoices', {
      customer: customer.id,
      currency: 'eur',
      notes: 'Thank you',
      items: [
        { description: 'Travel', unit_amount: 12_345, quantity: 2, discount: { amount_off: 345 }, tax_rate: 7 },
        { price: price.id, quantity: 3, discount: { percent_off: 10 } },
        { price: price.id, description: 'Workshop, day two' },
      ],
    });
    expect(response.status).toBe(201);
    const invoice = response.body.data;
    expect(invoice).toMatchObject({
      object: 'invoice',
      livemode: true,
      number: null,
      status: 'draft',
      customer: customer.id,
      customer_name: 'Müller GmbH',
      currency: 'EUR',
      collection_method: 'send_invoice',
      issue_date: '2026-11-22',
      due_date: null,
      amount_due: 0,
      amount_paid: 0,
      notes: 'Thank you',
      footer: null,
      business_snapshot: null,
      customer_snapshot: null,
      public_url_token: null,
      public_url: null,
      finalized_at: null,
      paid_at: null,
      voided_at: null,
      void_reason: null,
      created_at: '2026-11-22T10:00:00.000Z',
    });
    expect(invoice.id).toMatch(/^in_[0-9a-f]{32}$/);
    const [travel, workshop, dayTwo] = invoice.lines.data;
    expect(travel).toMatchObject({ object: 'invoiceitem', livemode: true, price: null, product: null, description: 'Travel', quantity: 2, unit_amount: 12_345, discount_amount: 345, tax_rate: 7, amount: 24_345, tax: 1704 });
    expect(workshop).toMatchObject({ price: price.id, product: product.id, description: 'Design workshop', quantity: 3, unit_amount: 50_000, discount_amount: 15_000, tax_rate: 19, amount: 135_000, tax: 25_650 });
    expect(dayTwo).toMatchObject({ description: 'Workshop, day two', quantity: 1, unit_amount: 50_000, discount: null, amount: 50_000, tax: 9_500 });
    // decisions.md: exactly one of amount_off or percent_off, so the other key is absent, not null.
    expect([travel.discount, workshop.discount, dayTwo.discount]).toEqual([{ amount_off: 345 }, { percent_off: 10 }, null]);
    expect(travel.id).toMatch(/^ii_[0-9a-f]{32}$/);
    expect(invoice).toMatchObject({ subtotal: 224_690, discount_total: 15_345, taxable_amount: 209_345, tax_total: 36_854, total: 246_199 });

    const read = await api.call('GET', `/api/v1/invoices/${invoice.id}`);
    expect(read.body.data).toEqual(invoice);
  });

  it('defaults the currency from the account and the issue date to today in the workspace time zone', async () => {
    const client = workspaceClient(harness.service);
    const own = catalogSeeder(harness, client.workspaceId);
    const buyer = await own.customer({ name: 'Tanaka KK' });
    await client.call('PATCH', '/api/v1/account', { default_currency: 'JPY', timezone: 'Asia/Tokyo' });
    harness.clock.set('2026-11-22T20:00:00.000Z'); // already the 23rd in Tokyo
    const response = await client.call('POST', '/api/v1/invoices', { customer: buyer.id, days_until_due: 30, items: [{ description: 'Sushi', unit_amount: 1_280, quantity: 3, tax_rate: 10 }] });
    harness.clock.set('2026-11-22T10:00:00.000Z');
    expect(response.body.data).toMatchObject({ currency: 'JPY', issue_date: '2026-11-23', due_date: '2026-12-23', days_until_due: 30, subtotal: 3_840, tax_total: 384, total: 4_224 });
  });

  it('sets due_date from days_until_due, ignores days_until_due beside a due_date, and refuses a due date before the issue date', async () => {
    expect(await createDraft({ issue_date: '2026-01-31', days_until_due: 29 })).toMatchObject({ due_date: '2026-03-01', days_until_due: 29 });
    expect(await createDraft({ due_date: '2026-12-01', days_until_due: 5 })).toMatchObject({ due_date: '2026-12-01', days_until_due: null });
    const refused = await api.call('POST', '/api/v1/invoices', { customer: customer.id, issue_date: '2026-11-22', due_date: '2026-11-21', items: [adHoc()] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'due_date', message: expect.any(String) }]);
  });

  it('PATCH replaces sent fields and all lines, keeps the rest, and clears due_date with "" and notes with null', async () => {
    const draft = await createDraft({ notes: 'first', footer: 'Net 30', due_date: '2026-12-31', items: [adHoc(), adHoc({ description: 'Hotel' })] });
    const patched = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: null, due_date: '', items: [{ price: price.id, quantity: 2 }] });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({ status: 'draft', number: null, notes: null, footer: 'Net 30', due_date: null, subtotal: 100_000, tax_total: 19_000, total: 119_000 });
    expect(patched.body.data.lines.data).toHaveLength(1);
    expect(patched.body.data.lines.data[0]).toMatchObject({ price: price.id, quantity: 2 });

    harness.clock.advance(60_000);
    const again = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { issue_date: '2026-12-01', days_until_due: 14 });
    harness.clock.set('2026-11-22T10:00:00.000Z');
    expect(again.body.data).toMatchObject({ issue_date: '2026-12-01', due_date: '2026-12-15', days_until_due: 14, footer: 'Net 30', updated_at: '2026-11-22T10:01:00.000Z' });
    expect(again.body.data.lines.data).toEqual(patched.body.data.lines.data);
  });

  it('changing the currency drops catalog lines priced in the old one and keeps ad-hoc lines', async () => {
    const draft = await createDraft({ currency: 'EUR', items: [{ price: price.id }, adHoc({ unit_amount: 700 })] });
    const patched = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { currency: 'usd' });
    expect(patched.status).toBe(200);
    expect(patched.body.data.currency).toBe('USD');
    expect(patched.body.data.lines.data.map((line: { description: string }) => line.description)).toEqual(['Travel']);
    expect(patched.body.data).toMatchObject({ subtotal: 700, total: 700 });
  });

  it('keeps an archived price on a saved line, but refuses it on a new one', async () => {
    const soon = await seed.price(product.id, { unit_amount: 1_000, currency: 'EUR', tax_rate: 0 });
    const draft = await createDraft({ items: [{ price: soon.id }] });
    await seed.archivePrice(soon.id);
    const kept = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'still priced' });
    expect(kept.body.data.lines.data[0]).toMatchObject({ price: soon.id, unit_amount: 1_000 });
    const refused = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { items: [{ price: soon.id }] });
    expect(refused.status).toBe(400);
    expect(refused.body).toMatchObject({ code: 'invalid_request', errors: [{ path: 'items.0.price', message: expect.stringContaining('archived') }] });
  });

  it('refuses a price in another currency than the invoice', async () => {
    const dollars = await seed.price(product.id, { unit_amount: 900, currency: 'USD' });
    const refused = await api.call('POST', '/api/v1/invoices', { customer: customer.id, currency: 'EUR', items: [adHoc(), { price: dollars.id }] });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([{ path: 'items.1.price', message: expect.stringContaining('USD') }]);
  });

  it('answers 404 for customers and prices of another workspace, and for its invoices', async () => {
    const other = workspaceClient(harness.service);
    const theirs = catalogSeeder(harness, other.workspaceId);
    const theirCustomer = await theirs.customer({ name: 'Elsewhere Ltd' });
    const theirPrice = await theirs.price((await theirs.product()).id);
    const theirInvoice = await createDraft({ customer: theirCustomer.id }, other);

    const foreignCustomer = await api.call('POST', '/api/v1/invoices', { customer: theirCustomer.id, items: [adHoc()] });
    expect(foreignCustomer).toMatchObject({ status: 404, body: { code: 'not_found' } });
    const foreignPrice = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ price: theirPrice.id }] });
    expect(foreignPrice).toMatchObject({ status: 404, body: { code: 'not_found' } });
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/finalize'], ['GET', '/timeline']] as const) {
      const response = await api.call(method, `/api/v1/invoices/${theirInvoice.id}${path}`, method === 'PATCH' ? {} : undefined);
      expect(response.status, `${method} ${path}`).toBe(404);
    }
    expect((await other.call('GET', `/api/v1/invoices/${theirInvoice.id}`)).status).toBe(200);
  });

  it('accepts the dashed UUID wherever an ID is taken', async () => {
    const draft = await createDraft();
    const hex = draft.id.slice(3);
    const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    expect((await api.call('GET', `/api/v1/invoices/${uuid}`)).body.data.id).toBe(draft.id);
    expect((await api.call('GET', '/api/v1/invoices/in_nothex')).status).toBe(404);
  });

  it('deletes a draft (204) and then knows it no more', async () => {
    const draft = await createDraft();
    const deleted = await api.call('DELETE', `/api/v1/invoices/${draft.id}`);
    expect(deleted.status).toBe(204);
    expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/api/v1/invoices/${draft.id}`)).status).toBe(404);
  });

  it('records created and updated in the timeline with time and key', async () => {
    const draft = await createDraft();
    harness.clock.advance(1_000);
    await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'x' });
    harness.clock.set('2026-11-22T10:00:00.000Z');
    const timeline = await api.call('GET', `/api/v1/invoices/${draft.id}/timeline`);
    expect(timeline.body).toEqual({
      data: [
        { object: 'timeline_entry', livemode: true, type: 'created', occurred_at: '2026-11-22T10:00:00.000Z', key_id: api.keyId, request_id: expect.any(String) },
        { object: 'timeline_entry', livemode: true, type: 'updated', occurred_at: '2026-11-22T10:00:01.000Z', key_id: api.keyId, request_id: expect.any(String) },
      ],
      next_cursor: null,
    });
  });

  describe('rules from the spec audit', () => {
    const patch = (id: string, body: Record<string, unknown>) => api.call('PATCH', `/api/v1/invoices/${id}`, body);
    const eventsOf = async (id: string) =>
      (await harness.sql<{ subject: string }>(`select subject from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`, [id])).map((row) => row.subject);
    const timelineOf = async (id: string) => (await api.call('GET', `/api/v1/invoices/${id}/timeline`)).body.data.map((entry: { type: string }) => entry.type);

    it('takes back the lines it returned: PATCH items with the lines as read gives the same lines and totals', async () => {
      const draft = await createDraft({
        items: [
          { description: 'Travel', unit_amount: 12_345, quantity: 2, discount: { amount_off: 345 }, tax_rate: 7 },
          { price: price.id, quantity: 3, discount: { percent_off: 12.5 } },
          { price: price.id, description: 'Workshop, day two' },
        ],
      });
      const read = (await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data;
      // Everything a client may send back: a catalog line takes amount and tax rate from its price.
      const items = read.lines.data.map(({ price: linePrice, description, quantity, unit_amount, tax_rate, discount }: Record<string, unknown>) =>
        linePrice ? { price: linePrice, description, quantity, discount } : { description, quantity, unit_amount, tax_rate, discount },
      );
      const resent = await patch(draft.id, { items });
      expect(resent.status, JSON.stringify(resent.body)).toBe(200);
      const totals = ({ subtotal, discount_total, taxable_amount, tax_total, total }: Record<string, unknown>) => ({ subtotal, discount_total, taxable_amount, tax_total, total });
      expect(totals(resent.body.data)).toEqual(totals(read));
      const withoutIds = (lines: { id: string }[]) => lines.map(({ id: _, ...line }) => line);
      expect(withoutIds(resent.body.data.lines.data)).toEqual(withoutIds(read.lines.data));
    });

    it('moves a due date that days_until_due set when the issue date changes alone, and keeps one that was sent', async () => {
      const derived = await createDraft({ issue_date: '2026-11-01', days_until_due: 10 });
      expect(derived).toMatchObject({ due_date: '2026-11-11', days_until_due: 10 });
      expect((await patch(derived.id, { issue_date: '2026-11-05' })).body.data).toMatchObject({ issue_date: '2026-11-05', due_date: '2026-11-15', days_until_due: 10 });

      const explicit = await createDraft({ issue_date: '2026-11-01', due_date: '2026-12-01' });
      expect((await patch(explicit.id, { issue_date: '2026-11-05' })).body.data).toMatchObject({ issue_date: '2026-11-05', due_date: '2026-12-01', days_until_due: null });

      // Clearing days_until_due keeps the date it set, which from then on stays where it is.
      expect((await patch(derived.id, { days_until_due: null })).body.data).toMatchObject({ due_date: '2026-11-15', days_until_due: null });
      expect((await patch(derived.id, { issue_date: '2026-11-08' })).body.data).toMatchObject({ issue_date: '2026-11-08', due_date: '2026-11-15', days_until_due: null });
    });

    it('answers a PATCH that changes nothing with the invoice as it is: updated_at, events and timeline untouched', async () => {
      const draft = await createDraft({ notes: 'As agreed', issue_date: '2026-11-01', days_until_due: 10 });
      harness.clock.advance(60_000);
      try {
        for (const body of [{}, { notes: 'As agreed', currency: 'eur', customer: customer.id, issue_date: '2026-11-01', days_until_due: 10, footer: null }]) {
          const response = await patch(draft.id, body);
          expect(response.status, JSON.stringify(response.body)).toBe(200);
          expect(response.body.data).toEqual(draft);
        }
        expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data).toEqual(draft);
        expect(await eventsOf(draft.id)).toEqual(['billing.invoice.created']);
        expect(await timelineOf(draft.id)).toEqual(['created']);

        // `items` always makes new lines (new ids), so it is a change even when the lines look the same.
        const sameLines = await patch(draft.id, { items: [{ description: 'Travel', unit_amount: 10_000 }] });
        expect(sameLines.body.data.updated_at).toBe('2026-11-22T10:01:00.000Z');
        expect(sameLines.body.data.lines.data[0].id).not.toBe(draft.lines.data[0].id);
        expect(await eventsOf(draft.id)).toEqual(['billing.invoice.created', 'billing.invoice.updated']);
        expect(await timelineOf(draft.id)).toEqual(['created', 'updated']);
      } finally {
        harness.clock.set('2026-11-22T10:00:00.000Z');
      }
    });

    it('refuses a deleted customer on a new invoice and as a draft’s new customer; a draft that has one keeps it and finalizes', async () => {
      const leaving = await seed.customer({ name: 'Gone Ltd' });
      const theirs = await createDraft({ customer: leaving.id });
      const other = await createDraft();
      await seed.deleteCustomer(leaving.id);

      const created = await api.call('POST', '/api/v1/invoices', { customer: leaving.id, items: [{ description: 'x', unit_amount: 1 }] });
      expect(created).toMatchObject({ status: 400, body: { code: 'invalid_request', errors: [{ path: 'customer', message: expect.stringContaining('is deleted') }] } });
      const moved = await patch(other.id, { customer: leaving.id });
      expect(moved).toMatchObject({ status: 400, body: { code: 'invalid_request', errors: [{ path: 'customer', message: expect.stringContaining('is deleted') }] } });
      expect((await api.call('GET', `/api/v1/invoices/${other.id}`)).body.data.customer).toBe(customer.id);

      expect(await patch(theirs.id, { notes: 'still theirs' })).toMatchObject({ status: 200, body: { data: { customer: leaving.id, notes: 'still theirs' } } });
      expect(await patch(theirs.id, { customer: leaving.id })).toMatchObject({ status: 200, body: { data: { customer: leaving.id } } });
      const finalized = await api.call('POST', `/api/v1/invoices/${theirs.id}/finalize`);
      expect(finalized).toMatchObject({ status: 200, body: { data: { status: 'open', customer: leaving.id, customer_snapshot: { name: 'Gone Ltd' } } } });
    });
  });
});

describe('invoice list', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  const ids: Record<string, string> = {};

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    const seed = catalogSeeder(harness, api.workspaceId);
    const acme = await seed.customer({ name: 'Acme Corporation' });
    const globex = await seed.customer({ name: 'Globex' });
    const create = async (name: string, customer: string, extra: Record<string, unknown> = {}) => {
      const response = await api.call('POST', '/api/v1/invoices', { customer, items: [{ description: name, unit_amount: 100 }], ...extra });
      ids[name] = response.body.data.id;
      harness.clock.advance(1_000);
    };
    ids.acme = acme.id;
    ids.globex = globex.id;
    harness.clock.set('2026-11-01T00:00:00.000Z');
    await create('a-draft', acme.id, { notes: 'rush order 50%' });
    await create('b-open', acme.id, { due_date: '2026-12-31' });
    await create('c-overdue', globex.id, { due_date: '2026-11-10' });
    await create('d-paid', globex.id);
    await create('e-void', acme.id);
    for (const name of ['b-open', 'c-overdue', 'd-paid', 'e-void']) await api.call('POST', `/api/v1/invoices/${ids[name]}/finalize`);
    await api.call('POST', `/api/v1/invoices/${ids['d-paid']}/pay`);
    await api.call('POST', `/api/v1/invoices/${ids['e-void']}/void`);
    harness.clock.set('2026-11-22T10:00:00.000Z');
  });
  afterAll(async () => {
    await harness?.close();
  });

  const listed = async (query: string) => {
    const response = await api.call('GET', `/api/v1/invoices${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.data.map((invoice: { lines: { data: { description: string }[] } }) => invoice.lines.data[0]!.description);
  };

  it('lists newest first with lines', async () => {
    expect(await listed('')).toEqual(['e-void', 'd-paid', 'c-overdue', 'b-open', 'a-draft']);
  });

  it('filters by status, overdue told from open as reads tell them', async () => {
    expect(await listed('?status=draft')).toEqual(['a-draft']);
    expect(await listed('?status=open')).toEqual(['b-open']);
    expect(await listed('?status=overdue')).toEqual(['c-overdue']);
    expect(await listed('?status=paid')).toEqual(['d-paid']);
    expect(await listed('?status=void')).toEqual(['e-void']);
    expect((await api.call('GET', `/api/v1/invoices/${ids['c-overdue']}`)).body.data.status).toBe('overdue');
  });

  it('filters by customer (unknown: empty) and by creation time', async () => {
    expect(await listed(`?customer=${ids.globex}`)).toEqual(['d-paid', 'c-overdue']);
    expect(await listed(`?customer=cus_${randomUUID().replaceAll('-', '')}`)).toEqual([]);
    expect(await listed('?created[gte]=2026-11-01T00:00:01.000Z&created[lte]=2026-11-01T00:00:03Z')).toEqual(['d-paid', 'c-overdue', 'b-open']);
    expect(await listed('?created[gte]=2026-11-02')).toEqual([]);
    expect(await listed('?created[lte]=2026-11-01')).toHaveLength(5);
  });

  it('searches number, customer name and notes, partially and case-insensitively', async () => {
    expect(await listed('?q=ACME')).toEqual(['e-void', 'b-open', 'a-draft']);
    expect(await listed('?q=50%25')).toEqual(['a-draft']);
    expect(await listed('?q=INV/2026/000')).toEqual(['e-void', 'd-paid', 'c-overdue', 'b-open']);
    expect(await listed('?q=0003')).toEqual(['d-paid']);
  });

  it('pages with keyset cursors until next_cursor is null', async () => {
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const response: { body: { data: { lines: { data: { description: string }[] } }[]; next_cursor: string | null } } = await api.call(
        'GET',
        `/api/v1/invoices?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      seen.push(...response.body.data.map((invoice) => invoice.lines.data[0]!.description));
      cursor = response.body.next_cursor;
    } while (cursor);
    expect(seen).toEqual(['e-void', 'd-paid', 'c-overdue', 'b-open', 'a-draft']);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['cursor=bm90LWEtY3Vyc29y', 'cursor'],
    ['status=late', 'status'],
    ['customer=prod_0190f3e2c1b27a8e9d1f3c4b5a697887', 'customer'],
    ['created[gte]=yesterday', 'created[gte]'],
    ['colour=red', 'colour'],
  ])('refuses ?%s with a 400 naming %s', async (query, path) => {
    const response = await api.call('GET', `/api/v1/invoices?${query}`);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ code: 'invalid_request', errors: [expect.objectContaining({ path })] });
  });
});
