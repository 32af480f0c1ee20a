import { billingEventSchema, isBillingSubject, type EventEnvelope } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

describe('finalize, pay, void', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let customer: { id: string };
  const published: EventEnvelope[] = [];

  const draft = async (extra: Record<string, unknown> = {}) => {
    const response = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }], ...extra });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data;
  };
  const act = (id: string, verb: 'finalize' | 'pay' | 'void', body?: unknown, key = `key-${verb}-${id}`) =>
    api.call('POST', `/api/v1/invoices/${id}/${verb}`, body, { 'x-idempotency-key': key });
  const outboxOf = (id: string) =>
    harness.sql<{ envelope: EventEnvelope }>(`select envelope from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`, [id]);

  beforeAll(async () => {
    harness = await startBillingHarness();
    await harness.bus.subscribe({ durable: 'lifecycle-test', subject: 'billing.>', handle: async (envelope) => void published.push(envelope) });
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    customer = await seed.customer();
    await api.call('PATCH', '/api/v1/account', {
      business_name: 'Seller GmbH',
      email: 'invoices@seller.example',
      address: { line1: 'Hauptstraße 1', city: 'Berlin', country: 'de' },
      tax_id: 'DE999',
      default_currency: 'EUR',
      timezone: 'Europe/Berlin',
      payment_instructions: 'IBAN DE00 1234',
      brand_color: '#1a2b3c',
    });
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('finalizes atomically: number, snapshots, public link, amount due, frozen lines', async () => {
    const created = await draft({ due_date: '2026-12-22' });
    harness.clock.set('2026-11-22T11:00:00.000Z');
    const response = await act(created.id, 'finalize');
    harness.clock.set('2026-11-22T10:00:00.000Z');
    expect(response.status).toBe(200);
    const invoice = response.body.data;
    expect(invoice).toMatchObject({
      number: 'INV/2026/0001',
      status: 'open',
      amount_due: invoice.total,
      total: 119_000,
      finalized_at: '2026-11-22T11:00:00.000Z',
      customer_snapshot: { name: 'Müller GmbH', email: 'billing@mueller.example', tax_id: 'DE123456789', address: { line1: 'Straße 5', city: 'Köln', country: 'DE' } },
      business_snapshot: {
        business_name: 'Seller GmbH',
        email: 'invoices@seller.example',
        tax_id: 'DE999',
        address: { line1: 'Hauptstraße 1', city: 'Berlin', country: 'DE' },
        payment_instructions: 'IBAN DE00 1234',
        brand_color: '#1A2B3C',
      },
    });
    expect(invoice.public_url_token).toMatch(/^[A-Za-z0-9_-]{32}$/); // 192 random bits
    expect(invoice.public_url).toBe(`http://localhost:8080/i/${invoice.public_url_token}`);
    expect(invoice.lines).toEqual(created.lines);
    expect(invoice.snapshot_sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(invoice.chain_sha256).toMatch(/^[0-9a-f]{64}$/);

    // Later edits of the customer or the business profile leave the finalized invoice as it was.
    await seed.updateCustomer(customer.id, { name: 'Renamed AG' });
    await api.call('PATCH', '/api/v1/account', { business_name: 'New Name' });
    const read = await api.call('GET', `/api/v1/invoices/${invoice.id}`);
    expect(read.body.data).toEqual(invoice);
    await seed.updateCustomer(customer.id, { name: 'Müller GmbH' });
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH' });
  });

  it('answers a finalize of an open invoice with the invoice as it is: same number, no event', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    const again = await act(open.id, 'finalize', undefined, 'another-key');
    expect(again.status).toBe(200);
    expect(again.body.data).toEqual(open);
    expect((await outboxOf(open.id)).map((row) => row.envelope.type)).toEqual(['billing.invoice.created', 'billing.invoice.finalized']);
  });

  it('reports overdue in the finalize response when the due date is already past', async () => {
    const late = await draft({ issue_date: '2026-11-01', due_date: '2026-11-21' });
    expect((await act(late.id, 'finalize')).body.data).toMatchObject({ status: 'overdue', amount_due: 119_000 });
  });

  it('refuses to edit or delete a finalized invoice (409 invalid_state) and changes nothing', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    const patch = await api.call('PATCH', `/api/v1/invoices/${open.id}`, { notes: 'changed' });
    expect(patch).toMatchObject({ status: 409, body: { code: 'invalid_state', type: expect.any(String), title: expect.any(String), detail: expect.any(String), request_id: expect.any(String) } });
    expect(patch.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect((await api.call('DELETE', `/api/v1/invoices/${open.id}`)).body.code).toBe('invalid_state');
    expect((await api.call('GET', `/api/v1/invoices/${open.id}`)).body.data).toEqual(open);
  });

  it('pays: status paid, amount_due 0, paid_at, reference; the response has no lines; a second pay is a 409', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    harness.clock.set('2026-11-23T09:30:00.000Z');
    const paid = await act(open.id, 'pay', { payment_reference: 'SEPA-4711' });
    harness.clock.set('2026-11-22T10:00:00.000Z');
    expect(paid.status).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'paid', amount_due: 0, amount_paid: open.total, total: open.total, number: open.number, paid_at: '2026-11-23T09:30:00.000Z', payment_reference: 'SEPA-4711' });
    expect(paid.body.data).not.toHaveProperty('lines');
    expect((await act(open.id, 'pay', undefined, 'second')).body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('already paid') });
    expect((await act(open.id, 'void', undefined, 'third')).body).toMatchObject({ code: 'invalid_state', detail: expect.stringContaining('paid invoice cannot be voided') });
    expect((await act(open.id, 'finalize', undefined, 'fourth')).status).toBe(409);
    expect((await api.call('GET', `/api/v1/invoices/${open.id}`)).body.data.status).toBe('paid');
  });

  it('stores a blank payment reference, void reason and notes as null, like every optional text field', async () => {
    const blankNotes = await api.call('PATCH', `/api/v1/invoices/${(await draft()).id}`, { notes: '   ', footer: '' });
    expect(blankNotes.body.data).toMatchObject({ notes: null, footer: null });
    const paid = await act((await act((await draft()).id, 'finalize')).body.data.id, 'pay', { payment_reference: '  ' });
    expect(paid.body.data.payment_reference).toBeNull();
    const voided = await act((await act((await draft()).id, 'finalize')).body.data.id, 'void', { reason: ' \t ' });
    expect(voided.body.data.void_reason).toBeNull();
  });

  it('pays on a given date (stored in paid_at) but not on a future one', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    const future = await act(open.id, 'pay', { paid_on: '2026-11-23' });
    expect(future).toMatchObject({ status: 400, body: { errors: [{ path: 'paid_on' }] } });
    const paid = await act(open.id, 'pay', { paid_on: '2026-11-20' }, 'dated');
    expect(paid.body.data.paid_at).toBe('2026-11-20T00:00:00.000Z');
  });

  it('voids: number kept, amount_due 0, voided_at, reason; paid_at null; no lines; then refuses pay and void', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    const voided = await act(open.id, 'void', { reason: 'Issued twice' });
    expect(voided.status).toBe(200);
    expect(voided.body.data).toMatchObject({ status: 'void', number: open.number, amount_due: 0, voided_at: '2026-11-22T10:00:00.000Z', void_reason: 'Issued twice', paid_at: null });
    expect(voided.body.data).not.toHaveProperty('lines');
    expect((await act(open.id, 'void', undefined, 'again')).status).toBe(409);
    expect((await act(open.id, 'pay', undefined, 'pay-void')).status).toBe(409);
  });

  it('refuses pay and void on a draft', async () => {
    const created = await draft();
    expect((await act(created.id, 'pay')).body.code).toBe('invalid_state');
    expect((await act(created.id, 'void')).body.code).toBe('invalid_state');
    expect((await api.call('GET', `/api/v1/invoices/${created.id}`)).body.data.status).toBe('draft');
  });

  it('keeps the timeline of a life: created, finalized with its number, paid with date and reference', async () => {
    const created = await draft();
    const { number } = (await act(created.id, 'finalize')).body.data;
    await act(created.id, 'pay', { paid_on: '2026-11-21', payment_reference: 'REF-1' });
    const timeline = (await api.call('GET', `/api/v1/invoices/${created.id}/timeline`)).body.data;
    expect(timeline.map(({ type }: { type: string }) => type)).toEqual(['created', 'finalized', 'paid']);
    expect(timeline[1]).toMatchObject({ number, key_id: api.keyId });
    expect(timeline[2]).toMatchObject({ paid_on: '2026-11-21', payment_reference: 'REF-1', occurred_at: '2026-11-22T10:00:00.000Z' });
    const voided = await draft();
    await act(voided.id, 'finalize');
    await act(voided.id, 'void', { reason: 'Wrong customer' });
    expect((await api.call('GET', `/api/v1/invoices/${voided.id}/timeline`)).body.data.at(-1)).toMatchObject({ type: 'voided', reason: 'Wrong customer' });
  });

  it('rotates the public link: the old token names nothing, the new one the same invoice; the hashes stand', async () => {
    const open = (await act((await draft()).id, 'finalize')).body.data;
    const byToken = (token: string) =>
      harness.service.app.inject({ method: 'GET', url: `/internal/v1/invoices/by-token/${token}`, headers: { 'x-internal-token': INTERNAL_TOKEN } });
    const before = await byToken(open.public_url_token);
    expect(before.statusCode).toBe(200);
    expect(before.json()).toEqual({ workspace_id: api.workspaceId, invoice: open });

    const rotated = await api.call('POST', `/api/v1/invoices/${open.id}/public_link/rotate`);
    expect(rotated.status).toBe(200);
    const fresh = rotated.body.data;
    expect(fresh.public_url_token).toMatch(/^[A-Za-z0-9_-]{32}$/);
    expect(fresh.public_url_token).not.toBe(open.public_url_token);
    expect(fresh).toMatchObject({ public_url: `http://localhost:8080/i/${fresh.public_url_token}`, number: open.number, snapshot_sha256: open.snapshot_sha256, chain_sha256: open.chain_sha256 });
    expect((await byToken(open.public_url_token)).statusCode).toBe(404);
    expect((await byToken(fresh.public_url_token)).json().invoice).toEqual(fresh);
    expect((await byToken('nothing-here')).statusCode).toBe(404);
    expect((await api.call('GET', `/api/v1/invoices/${open.id}/timeline`)).body.data.at(-1).type).toBe('updated');
    expect((await outboxOf(open.id)).at(-1)!.envelope.type).toBe('billing.invoice.updated');
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data.verified).toBe(true);

    const drafted = await draft();
    expect((await api.call('POST', `/api/v1/invoices/${drafted.id}/public_link/rotate`)).body.code).toBe('invalid_state');
  });

  it('publishes an event per change through the outbox, each with request id, idempotency key, key id and the whole invoice', async () => {
    const created = await draft();
    await api.call('PATCH', `/api/v1/invoices/${created.id}`, { notes: 'n' });
    await act(created.id, 'finalize', undefined, 'idem-fin');
    await act(created.id, 'pay', undefined, 'idem-pay');
    const deleted = await draft();
    await api.call('DELETE', `/api/v1/invoices/${deleted.id}`);

    const rows = (await outboxOf(created.id)).map((row) => row.envelope);
    expect(rows.map((envelope) => envelope.type)).toEqual(['billing.invoice.created', 'billing.invoice.updated', 'billing.invoice.finalized', 'billing.invoice.payment_recorded', 'billing.invoice.paid']);
    for (const envelope of rows) {
      expect(isBillingSubject(envelope.type)).toBe(true);
      if (isBillingSubject(envelope.type)) expect(billingEventSchema(envelope.type).safeParse(envelope).success).toBe(true);
      expect(envelope).toMatchObject({ workspace_id: api.workspaceId, actor_key_id: api.keyId, correlation_id: expect.stringMatching(/^req-/) });
    }
    expect(rows[2]).toMatchObject({ idempotency_key: 'idem-fin', data: { object: { status: 'open', number: expect.any(String) } } });
    expect(rows[3]).toMatchObject({ idempotency_key: 'idem-pay', data: { object: { status: 'paid', amount_remaining: 0 } } });
    const paid = rows[4] as EventEnvelope<{ object: { status: string; lines: { data: unknown[] } } }>;
    expect(paid).toMatchObject({ idempotency_key: 'idem-pay', data: { object: { status: 'paid' } } });
    expect(paid.data.object.lines.data).toHaveLength(1);
    expect((await outboxOf(deleted.id)).map((row) => row.envelope.type)).toEqual(['billing.invoice.created', 'billing.invoice.deleted']);

    await expect.poll(() => published.filter((e) => JSON.stringify(e.data).includes(created.id)).length, { timeout: 10_000 }).toBe(5);
    await expect.poll(async () => (await harness.service.relay.lag()).pending, { timeout: 10_000 }).toBe(0);
  });
});

describe('numbering', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  const workspace = async () => {
    const api = workspaceClient(harness.service);
    const customer = await catalogSeeder(harness, api.workspaceId).customer();
    const finalizeNew = async () => {
      const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'x', unit_amount: 1 }] });
      const finalized = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`);
      return finalized;
    };
    return { api, customer, finalizeNew, number: async () => (await finalizeNew()).body.data.number as string };
  };

  it('numbers consecutively; deleted drafts leave no gap; the report recounts and verify recomputes the chain', async () => {
    const { api, customer, number } = await workspace();
    expect(await number()).toBe('INV/2026/0001');
    const doomed = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'x', unit_amount: 1 }] });
    await api.call('DELETE', `/api/v1/invoices/${doomed.body.data.id}`);
    expect(await number()).toBe('INV/2026/0002');
    expect(await number()).toBe('INV/2026/0003');

    const report = await api.call('GET', '/api/v1/numbering');
    expect(report.body.data).toEqual({
      object: 'numbering',
      livemode: true,
      number_format: 'INV/{YYYY}/{SEQ:4}',
      timezone: 'UTC',
      current_period: '2026',
      next_number: 'INV/2026/0004',
      gap_free: true,
      series: [
        { object: 'number_series', livemode: true, format: 'INV/{YYYY}/{SEQ:4}', period: '2026', issued: 3, first_number: 'INV/2026/0001', last_number: 'INV/2026/0003', last_sequence: 3, next_number: 'INV/2026/0004', gaps: [] },
      ],
    });
    const verification = await api.call('GET', '/api/v1/numbering/verify');
    expect(verification.body.data).toMatchObject({ object: 'numbering_verification', livemode: true, verified: true, series_checked: 1, invoices_checked: 3, first_break: null });
  });

  it('restarts each period in the workspace time zone, and a format used before continues where it stopped', async () => {
    const { api, number } = await workspace();
    await api.call('PATCH', '/api/v1/account', { timezone: 'Pacific/Auckland' });
    harness.clock.set('2026-12-31T10:59:00.000Z'); // 23:59 in Auckland
    expect(await number()).toBe('INV/2026/0001');
    harness.clock.set('2026-12-31T11:00:00.000Z'); // New Year in Auckland, still 2026 in UTC
    expect(await number()).toBe('INV/2027/0001');
    await api.call('PATCH', '/api/v1/account', { number_format: 'F-{YY}{MM}-{SEQ:3}' });
    expect(await number()).toBe('F-2701-001');
    expect(await number()).toBe('F-2701-002');
    await api.call('PATCH', '/api/v1/account', { number_format: 'INV/{YYYY}/{SEQ:4}' });
    expect(await number()).toBe('INV/2027/0002');
    await api.call('PATCH', '/api/v1/account', { number_format: 'NO-PERIOD-{SEQ:2}' });
    expect(await number()).toBe('NO-PERIOD-01');
    harness.clock.set('2029-06-01T00:00:00.000Z');
    expect(await number()).toBe('NO-PERIOD-02');
    harness.clock.set('2026-11-22T10:00:00.000Z');
    const report = (await api.call('GET', '/api/v1/numbering')).body.data;
    expect(report.series.map((s: { format: string; period: string | null; issued: number }) => [s.format, s.period, s.issued])).toEqual([
      ['F-{YY}{MM}-{SEQ:3}', '2027-01', 2],
      ['INV/{YYYY}/{SEQ:4}', '2027', 2],
      ['INV/{YYYY}/{SEQ:4}', '2026', 1],
      ['NO-PERIOD-{SEQ:2}', null, 2],
    ]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: true, series_checked: 4, invoices_checked: 7 });
  });

  it('refuses (409) a format that would repeat a number an earlier format issued, and consumes nothing', async () => {
    const { api, customer, number } = await workspace();
    await api.call('PATCH', '/api/v1/account', { number_format: 'X{SEQ:2}' });
    expect(await number()).toBe('X01');
    await api.call('PATCH', '/api/v1/account', { number_format: 'X0{SEQ:1}' });
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'x', unit_amount: 1 }] });
    const clash = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`);
    expect(clash).toMatchObject({ status: 409, body: { code: 'invalid_state' } });
    expect((await api.call('GET', `/api/v1/invoices/${created.body.data.id}`)).body.data).toMatchObject({ status: 'draft', number: null });
    const report = (await api.call('GET', '/api/v1/numbering')).body.data;
    expect(report.series.map((s: { format: string }) => s.format)).toEqual(['X{SEQ:2}']);
  });

  it('verify finds an edited finalized invoice and a deleted one; the report shows the gap', async () => {
    const { api, number } = await workspace();
    for (let i = 0; i < 4; i++) await number();
    const [second] = await harness.sql<{ id: string }>(`select id from billing.invoices where workspace_id = ? and number_sequence = 2`, [api.workspaceId]);
    await harness.sql(`update billing.invoices set total = total + 1 where id = ?`, [second!.id]);
    const edited = (await api.call('GET', '/api/v1/numbering/verify')).body.data;
    expect(edited).toMatchObject({ verified: false, first_break: { number: 'INV/2026/0002', sequence: 2, reason: 'snapshot_mismatch', invoice: expect.stringMatching(/^in_/) } });
    await harness.sql(`update billing.invoices set total = total - 1 where id = ?`, [second!.id]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data.verified).toBe(true);

    await harness.sql(`delete from billing.invoices where id = ?`, [second!.id]);
    expect((await api.call('GET', '/api/v1/numbering/verify')).body.data).toMatchObject({ verified: false, first_break: { number: 'INV/2026/0002', reason: 'missing_number', invoice: null } });
    const report = (await api.call('GET', '/api/v1/numbering')).body.data;
    expect(report.gap_free).toBe(false);
    expect(report.series[0].gaps).toEqual([{ first_sequence: 2, last_sequence: 2, first_number: 'INV/2026/0002', last_number: 'INV/2026/0002', count: 1 }]);

    const [last] = await harness.sql<{ id: string }>(`select id from billing.invoices where workspace_id = ? and number_sequence = 4`, [api.workspaceId]);
    await harness.sql(`update billing.invoices set chain_sha256 = repeat('a', 64) where id = ?`, [last!.id]);
    await harness.sql(`delete from billing.invoices where workspace_id = ? and number_sequence in (1, 3)`, [api.workspaceId]);
    expect((await api.call('GET', '/api/v1/numbering')).body.data.series[0].gaps.map((g: { first_sequence: number; last_sequence: number }) => [g.first_sequence, g.last_sequence])).toEqual([[1, 3]]);
  });
});

describe('overdue', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('reads say overdue the day after the due date in the workspace time zone', async () => {
    const api = workspaceClient(harness.service);
    const customer = await catalogSeeder(harness, api.workspaceId).customer();
    await api.call('PATCH', '/api/v1/account', { timezone: 'America/New_York' });
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, issue_date: '2026-11-01', due_date: '2026-11-21', items: [{ description: 'x', unit_amount: 5 }] });
    const id = created.body.data.id;
    harness.clock.set('2026-11-21T12:00:00.000Z');
    await api.call('POST', `/api/v1/invoices/${id}/finalize`);
    harness.clock.set('2026-11-22T04:59:00.000Z'); // still the 21st in New York
    expect((await api.call('GET', `/api/v1/invoices/${id}`)).body.data.status).toBe('open');
    harness.clock.set('2026-11-22T05:00:00.000Z'); // the 22nd in New York
    expect((await api.call('GET', `/api/v1/invoices/${id}`)).body.data.status).toBe('overdue');
    harness.clock.set('2026-11-22T10:00:00.000Z');
  });

  it('the sweep emits invoice.overdue once per invoice, even with two replicas sweeping at once', async () => {
    const api = workspaceClient(harness.service);
    const customer = await catalogSeeder(harness, api.workspaceId).customer();
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) {
      const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, issue_date: '2026-11-01', due_date: i < 10 ? '2026-11-15' : '2026-12-15', items: [{ description: 'x', unit_amount: 5 }] });
      ids.push(created.body.data.id);
      await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`);
    }
    await api.call('POST', `/api/v1/invoices/${ids[0]}/pay`); // paid before the sweep: never overdue
    // A replica sweeps once as it starts, too: three sweeps may race, each claiming what the others
    // have not, and other tests' workspaces have overdue invoices of their own. So what the sweeps
    // return is no count of this workspace's; the events they wrote are.
    const replica = await harness.start();
    await Promise.all([harness.service.sweep.sweepOnce(), replica.sweep.sweepOnce()]);
    const overdueEvents = () =>
      harness.sql<{ id: string; n: string }>(
        `select envelope->'data'->'object'->>'id' as id, count(*) as n from billing.outbox where subject = 'billing.invoice.overdue' and envelope->>'workspace_id' = ? group by 1`,
        [api.workspaceId],
      );
    await expect.poll(async () => (await overdueEvents()).length, { timeout: 10_000 }).toBe(9);
    const overdue = await overdueEvents();
    expect(overdue.map((row) => row.id).sort()).toEqual(ids.slice(1, 10).sort());
    expect(overdue.every((row) => Number(row.n) === 1)).toBe(true);
    expect(await harness.service.sweep.sweepOnce()).toBe(0);
    const [event] = await harness.sql<{ envelope: EventEnvelope<{ object: { status: string } }> }>(`select envelope from billing.outbox where subject = 'billing.invoice.overdue' and envelope->'data'->'object'->>'id' = ?`, [ids[1]]);
    expect(event!.envelope).toMatchObject({ actor_key_id: null, idempotency_key: null, data: { object: { status: 'overdue' } } });
    expect((await api.call('GET', `/api/v1/invoices/${ids[1]}/timeline`)).body.data.at(-1)).toMatchObject({ type: 'overdue', due_date: '2026-11-15', key_id: null });
  });
});

describe('account', () => {
  let harness: BillingHarness;

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('shows defaults until updated; PATCH keeps omitted fields, merges the address, clears with "" or null', async () => {
    const api = workspaceClient(harness.service);
    expect((await api.call('GET', '/api/v1/account')).body.data).toEqual({
      object: 'account',
      livemode: true,
      business_name: null,
      email: null,
      address: { line1: null, line2: null, city: null, state: null, postal_code: null, country: null },
      tax_id: null,
      default_currency: 'USD',
      timezone: 'UTC',
      number_format: 'INV/{YYYY}/{SEQ:4}',
      payment_instructions: null,
      brand_color: null,
      phone: null,
      contact_name: null,
      electronic_address: null,
      electronic_address_scheme: null,
      payment_account: null,
      payment_means: [],
      trading_name: null,
      registration_id: null,
      registration_id_scheme: null,
      legal_info: null,
      tax_representative: null,
      pdf_format: 'standard',
      locale: 'en',
      einvoice_required: 'none',
      send_on_finalize: false,
      email_attachments: ['pdf'],
      reminder_days: [],
      reply_to: null,
    });
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller', tax_id: 'T1', address: { city: 'Paris', country: 'fr' }, default_currency: 'eur' });
    const patched = await api.call('PATCH', '/api/v1/account', { tax_id: '', address: { line1: '1 Rue' }, number_format: '{YYYY}-{SEQ:5}' });
    expect(patched.body.data).toMatchObject({
      business_name: 'Seller',
      tax_id: null,
      default_currency: 'EUR',
      number_format: '{YYYY}-{SEQ:5}',
      address: { line1: '1 Rue', city: 'Paris', country: 'FR' },
    });
    expect((await api.call('GET', '/api/v1/account')).body.data).toEqual(patched.body.data);
  });

  it.each([
    [{ number_format: 'INV/{YYYY}' }, 'number_format', 'exactly once'],
    [{ number_format: '{SEQ:3}-{SEQ:3}' }, 'number_format', 'exactly once'],
    [{ number_format: 'INV/{YEAR}/{SEQ:4}' }, 'number_format', 'unknown token'],
    [{ number_format: '{MM}-{SEQ:4}' }, 'number_format', 'repeat every year'],
    [{ number_format: '{SEQ:0}' }, 'number_format', 'between 1'],
    [{ number_format: 'A{SEQ:4' }, 'number_format', 'unmatched'],
    [{ number_format: 'INV"{SEQ:4}' }, 'number_format', 'quotes'],
    [{ timezone: 'Mars/Olympus' }, 'timezone', 'IANA'],
    [{ default_currency: 'XXX' }, 'default_currency', 'ISO 4217'],
    [{ brand_color: 'red' }, 'brand_color', 'hex'],
    [{ email: 'not-an-email' }, 'email', 'email'],
    [{ address: { country: 'France' } }, 'address.country', ''],
    [{ plan: 'gold' }, 'plan', 'unknown field'],
  ])('refuses %j (400 on %s) and changes nothing', async (body, path, message) => {
    const api = workspaceClient(harness.service);
    const before = (await api.call('GET', '/api/v1/account')).body.data;
    const response = await api.call('PATCH', '/api/v1/account', body);
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ code: 'invalid_request', errors: expect.arrayContaining([expect.objectContaining({ path, message: expect.stringContaining(message) })]) });
    expect((await api.call('GET', '/api/v1/account')).body.data).toEqual(before);
  });
});
