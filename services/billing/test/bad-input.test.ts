import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type Response, type WorkspaceClient } from './support/billing-harness.ts';

const MAX = Number.MAX_SAFE_INTEGER;
const unknownId = (prefix: string) => `${prefix}_${randomUUID().replaceAll('-', '')}`;

/**
 * Every validation rule: the bad value gets the documented problem (400 invalid_request naming the
 * field, or 404 for a well-formed ID the workspace does not know), and nothing changes — no
 * invoice, no line, no number consumed, no event in the outbox.
 */
describe('bad input', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: string;
  let eurPrice: string;
  let usdPrice: string;
  let archivedPrice: string;
  let open: string;

  /** Everything billing stored, as one fingerprint. */
  const state = async () => {
    const [row] = await harness.sql<{ fingerprint: string }>(`
      select md5(concat_ws('|',
        (select string_agg(i::text, ',' order by i.id) from billing.invoices i),
        (select string_agg(l::text, ',' order by l.id) from billing.invoice_lines l),
        (select string_agg(s::text, ',' order by s.format, s.period) from billing.number_series s),
        (select string_agg(t::text, ',' order by t.id) from billing.invoice_timeline t),
        (select count(*)::text from billing.outbox),
        (select string_agg(a::text, ',') from billing.accounts a))) as fingerprint`);
    return row!.fingerprint;
  };

  const expectRefused = async (request: () => Promise<Response>, status: number, path?: string) => {
    const before = await state();
    const response = await request();
    expect(response.status, JSON.stringify(response.body)).toBe(status);
    expect(response.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(response.body).toMatchObject({ status, code: status === 404 ? 'not_found' : status === 409 ? 'invalid_state' : 'invalid_request', request_id: expect.any(String), detail: expect.any(String) });
    if (path !== undefined) expect(response.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    expect(await state()).toBe(before);
  };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    const seed = catalogSeeder(harness, api.workspaceId);
    customer = (await seed.customer()).id;
    await api.call('PATCH', '/api/v1/account', { default_currency: 'EUR' });
    const product = (await seed.product()).id;
    eurPrice = (await seed.price(product, { currency: 'EUR', unit_amount: 1_000 })).id;
    usdPrice = (await seed.price(product, { currency: 'USD' })).id;
    archivedPrice = (await seed.price(product, { currency: 'EUR' })).id;
    await seed.archivePrice(archivedPrice);
    const created = await api.call('POST', '/api/v1/invoices', { customer, items: [{ description: 'ok', unit_amount: 100 }] });
    open = created.body.data.id;
    await api.call('POST', `/api/v1/invoices/${open}/finalize`);
  });
  afterAll(async () => {
    await harness?.close();
  });

  const item = (overrides: Record<string, unknown> = {}) => ({ description: 'Work', unit_amount: 1_000, ...overrides });
  const body = (overrides: Record<string, unknown> = {}) => ({ customer, items: [item()], ...overrides });

  describe('create', () => {
    it.each<[string, () => Record<string, unknown>, string]>([
      ['no customer', () => ({ items: [item()] }), 'customer'],
      ['a customer ID of another kind', () => body({ customer: 'prod_0190f3e2c1b27a8e9d1f3c4b5a697887' }), 'customer'],
      ['a malformed customer ID', () => body({ customer: 'cus_123' }), 'customer'],
      ['an unknown currency', () => body({ currency: 'XXX' }), 'currency'],
      ['a currency that is not three letters', () => body({ currency: 'EURO' }), 'currency'],
      ['an unknown collection method', () => body({ collection_method: 'carrier_pigeon' }), 'collection_method'],
      ['an impossible issue date', () => body({ issue_date: '2026-02-30' }), 'issue_date'],
      ['an issue date in another format', () => body({ issue_date: '22/11/2026' }), 'issue_date'],
      ['a malformed due date', () => body({ due_date: '2026-13-01' }), 'due_date'],
      ['a due date before the issue date', () => body({ issue_date: '2026-11-22', due_date: '2026-11-01' }), 'due_date'],
      ['days_until_due below 0', () => body({ days_until_due: -1 }), 'days_until_due'],
      ['days_until_due above 365', () => body({ days_until_due: 366 }), 'days_until_due'],
      ['fractional days_until_due', () => body({ days_until_due: 1.5 }), 'days_until_due'],
      ['notes longer than 5000 characters', () => body({ notes: 'n'.repeat(5001) }), 'notes'],
      ['footer that is not text', () => body({ footer: 42 }), 'footer'],
      ['no items', () => ({ customer }), 'items'],
      ['an empty item list', () => body({ items: [] }), 'items'],
      ['more than 250 items', () => body({ items: Array.from({ length: 251 }, () => item()) }), 'items'],
      ['an ad-hoc item without description', () => body({ items: [{ unit_amount: 5 }] }), 'items.0.description'],
      ['an ad-hoc item without unit_amount', () => body({ items: [{ description: 'x' }] }), 'items.0.unit_amount'],
      ['an empty description', () => body({ items: [item({ description: '  ' })] }), 'items.0.description'],
      ['a negative unit_amount', () => body({ items: [item({ unit_amount: -1 })] }), 'items.0.unit_amount'],
      ['a fractional unit_amount', () => body({ items: [item({ unit_amount: 10.5 })] }), 'items.0.unit_amount'],
      ['a unit_amount sent as text', () => body({ items: [item({ unit_amount: '1000' })] }), 'items.0.unit_amount'],
      ['a unit_amount above MAX_SAFE_INTEGER', () => body({ items: [item({ unit_amount: MAX + 2 })] }), 'items.0.unit_amount'],
      ['quantity 0', () => body({ items: [item({ quantity: 0 })] }), 'items.0.quantity'],
      ['a fractional quantity', () => body({ items: [item({ quantity: 1.5 })] }), 'items.0.quantity'],
      ['a tax rate above 100', () => body({ items: [item({ tax_rate: 101 })] }), 'items.0.tax_rate'],
      ['a negative tax rate', () => body({ items: [item({ tax_rate: -1 })] }), 'items.0.tax_rate'],
      ['a tax rate with five decimals', () => body({ items: [item({ tax_rate: 8.12345 })] }), 'items.0.tax_rate'],
      ['a discount with both kinds', () => body({ items: [item({ discount: { amount_off: 1, percent_off: 1 } })] }), 'items.0.discount'],
      ['a discount with neither kind', () => body({ items: [item({ discount: {} })] }), 'items.0.discount'],
      ['percent_off above 100', () => body({ items: [item({ discount: { percent_off: 100.5 } })] }), 'items.0.discount.percent_off'],
      ['percent_off with three decimals', () => body({ items: [item({ discount: { percent_off: 12.345 } })] }), 'items.0.discount.percent_off'],
      ['a negative amount_off', () => body({ items: [item({ discount: { amount_off: -5 } })] }), 'items.0.discount.amount_off'],
      ['amount_off above the line subtotal', () => body({ items: [item({ quantity: 2, unit_amount: 10, discount: { amount_off: 21 } })] }), 'items.0.discount'],
      ['quantity × unit_amount above MAX_SAFE_INTEGER', () => body({ items: [item({ quantity: 3, unit_amount: Math.floor(MAX / 2) })] }), 'items.0.quantity'],
      ['a subtotal above MAX_SAFE_INTEGER across lines', () => body({ items: [item({ unit_amount: MAX - 1 }), item({ unit_amount: 2 })] }), 'items'],
      ['a total above MAX_SAFE_INTEGER once tax is added', () => body({ items: [item({ unit_amount: MAX - 5, tax_rate: 50 })] }), 'items'],
      ['a unit_amount beside a price', () => body({ items: [{ price: eurPrice, unit_amount: 5 }] }), 'items.0.unit_amount'],
      ['a tax_rate beside a price', () => body({ items: [{ price: eurPrice, tax_rate: 5 }] }), 'items.0.tax_rate'],
      ['a malformed price ID', () => body({ items: [{ price: 'price_nope' }] }), 'items.0.price'],
      ['an archived price', () => body({ items: [{ price: archivedPrice }] }), 'items.0.price'],
      ['a price in another currency', () => body({ currency: 'EUR', items: [{ price: usdPrice }] }), 'items.0.price'],
      ['an unknown field', () => body({ memo: 'x' }), 'memo'],
      ['an unknown item field', () => body({ items: [item({ colour: 'red' })] }), 'items.0.colour'],
    ])('%s → 400, nothing stored', async (_name, makeBody, path) => {
      await expectRefused(() => api.call('POST', '/api/v1/invoices', makeBody()), 400, path);
    });

    it('reports a due date before the issue date on due_date, in words that fit that path', async () => {
      const refused = await api.call('POST', '/api/v1/invoices', body({ issue_date: '2026-11-05', due_date: '2026-11-01' }));
      expect(refused.body.errors).toEqual([{ path: 'due_date', message: 'is before the issue date 2026-11-05' }]);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a unit_amount', { unit_amount: MAX + 2 }, 'items.0.unit_amount'],
      ['a quantity', { quantity: MAX + 2 }, 'items.0.quantity'],
      ['an amount_off', { discount: { amount_off: MAX + 2 } }, 'items.0.discount.amount_off'],
    ])('%s above MAX_SAFE_INTEGER is one error on its path', async (_name, overrides, path) => {
      const refused = await api.call('POST', '/api/v1/invoices', body({ items: [item(overrides)] }));
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ path, message: expect.any(String) }]);
    });

    it.each([
      ['a customer unknown in the workspace', () => body({ customer: unknownId('cus') })],
      ['a price unknown in the workspace', () => body({ items: [{ price: unknownId('price') }] })],
    ])('%s → 404, nothing stored', async (_name, makeBody) => {
      await expectRefused(() => api.call('POST', '/api/v1/invoices', makeBody()), 404);
    });

    it('no body, a body that is not JSON, or one not sent as JSON → 400, nothing stored', async () => {
      await expectRefused(() => api.call('POST', '/api/v1/invoices'), 400);
      const raw = (payload: string, contentType: string) =>
        harness.service.app
          .inject({ method: 'POST', url: '/api/v1/invoices', payload, headers: { 'content-type': contentType, 'x-internal-token': 'billing-test-internal-token-0123456789abcdef', 'x-workspace-id': api.workspaceId, 'x-api-key-id': api.keyId } })
          .then((r) => ({ status: r.statusCode, headers: r.headers, body: r.json() }));
      await expectRefused(() => raw('{"customer":', 'application/json'), 400);
      await expectRefused(() => raw(JSON.stringify(body()), 'text/plain'), 400);
    });
  });

  describe('PATCH', () => {
    let draft: string;
    beforeAll(async () => {
      draft = (await api.call('POST', '/api/v1/invoices', body())).body.data.id;
    });

    it.each<[string, () => Record<string, unknown>, string]>([
      ['an empty item list', () => ({ items: [] }), 'items'],
      ['a bad item', () => ({ items: [item({ unit_amount: -1 })] }), 'items.0.unit_amount'],
      ['a due date before the issue date', () => ({ due_date: '2020-01-01' }), 'due_date'],
      ['an issue date after the due date', () => ({ due_date: '2026-12-01', issue_date: '2026-12-02' }), 'due_date'],
      ['an archived price on a new line', () => ({ items: [{ price: archivedPrice }] }), 'items.0.price'],
      ['a malformed customer', () => ({ customer: 'cus_x' }), 'customer'],
      ['an unknown field', () => ({ number: 'INV-1' }), 'number'],
    ])('%s → 400, nothing changed', async (_name, makePatch, path) => {
      await expectRefused(() => api.call('PATCH', `/api/v1/invoices/${draft}`, makePatch()), 400, path);
    });

    it('an issue date moved past a due date that was sent → 400 on issue_date, in words that fit that path', async () => {
      const dated = (await api.call('POST', '/api/v1/invoices', body({ issue_date: '2026-11-01', due_date: '2026-11-10' }))).body.data.id;
      const before = await state();
      const refused = await api.call('PATCH', `/api/v1/invoices/${dated}`, { issue_date: '2026-11-12' });
      expect(refused.status).toBe(400);
      expect(refused.body.errors).toEqual([{ path: 'issue_date', message: 'is after the due date 2026-11-10' }]);
      expect(await state()).toBe(before);
    });

    it('an unknown customer → 404, nothing changed', async () => {
      await expectRefused(() => api.call('PATCH', `/api/v1/invoices/${draft}`, { customer: unknownId('cus') }), 404);
    });
  });

  describe('finalize, pay, void', () => {
    it('finalizing a draft left without lines → 400, no number consumed', async () => {
      const draft = (await api.call('POST', '/api/v1/invoices', body({ currency: 'EUR', items: [{ price: eurPrice }] }))).body.data.id;
      await api.call('PATCH', `/api/v1/invoices/${draft}`, { currency: 'GBP' });
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${draft}/finalize`), 400, 'items');
    });

    it('finalize with a field in its body → 400 naming it, nothing changed; no body, an empty one or {} finalize', async () => {
      const draft = (await api.call('POST', '/api/v1/invoices', body())).body.data.id;
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${draft}/finalize`, { x: 1 }), 400, 'x');
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${draft}/finalize`, ['x']), 400);
      const finalized = await api.call('POST', `/api/v1/invoices/${draft}/finalize`, {});
      expect(finalized.body.data).toMatchObject({ status: 'open', number: expect.any(String) });
      const other = (await api.call('POST', '/api/v1/invoices', body())).body.data.id;
      const empty = await harness.service.app.inject({
        method: 'POST',
        url: `/api/v1/invoices/${other}/finalize`,
        payload: '',
        headers: { 'content-type': 'application/json', 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': api.workspaceId, 'x-api-key-id': api.keyId },
      });
      expect(empty.statusCode, empty.body).toBe(200);
    });

    it('rotating a public link with a field in its body → 400 naming it, the link unchanged; {} rotates', async () => {
      const finalized = (await api.call('POST', `/api/v1/invoices/${(await api.call('POST', '/api/v1/invoices', body())).body.data.id}/finalize`)).body.data;
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${finalized.id}/public_link/rotate`, { token: 'mine' }), 400, 'token');
      expect((await api.call('GET', `/api/v1/invoices/${finalized.id}`)).body.data.public_url_token).toBe(finalized.public_url_token);
      const rotated = await api.call('POST', `/api/v1/invoices/${finalized.id}/public_link/rotate`, {});
      expect(rotated.body.data.public_url_token).not.toBe(finalized.public_url_token);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['paid_on in another format', { paid_on: '22.11.2026' }, 'paid_on'],
      ['paid_on in the future', { paid_on: '2026-11-23' }, 'paid_on'],
      ['a payment reference above 500 characters', { payment_reference: 'r'.repeat(501) }, 'payment_reference'],
      ['an unknown field', { amount: 100 }, 'amount'],
    ])('pay with %s → 400, nothing changed', async (_name, payBody, path) => {
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${open}/pay`, payBody), 400, path);
    });

    it.each<[string, Record<string, unknown>, string]>([
      ['a reason above 500 characters', { reason: 'r'.repeat(501) }, 'reason'],
      ['a reason that is not text', { reason: 7 }, 'reason'],
      ['an unknown field', { why: 'x' }, 'why'],
    ])('void with %s → 400, nothing changed', async (_name, voidBody, path) => {
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${open}/void`, voidBody), 400, path);
    });

    it.each(['finalize', 'pay', 'void'])('%s of an unknown or malformed invoice → 404, nothing changed', async (verb) => {
      await expectRefused(() => api.call('POST', `/api/v1/invoices/${unknownId('in')}/${verb}`), 404);
      await expectRefused(() => api.call('POST', `/api/v1/invoices/not-an-id/${verb}`), 404);
    });
  });
});
