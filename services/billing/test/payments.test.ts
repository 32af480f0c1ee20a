import type { EventEnvelope } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

describe('payments: several per invoice, the last one pays it', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: { id: string };
  let keys = 0;

  const post = (url: string, body?: unknown) => api.call('POST', url, body, { 'x-idempotency-key': `key-${++keys}` });
  const openInvoice = async (unitAmount = 100_000) => {
    const draft = await api.call('POST', '/api/v1/invoices', { customer: customer.id, currency: 'EUR', items: [{ description: 'Audit', unit_amount: unitAmount }] }, { 'x-idempotency-key': `key-${++keys}` });
    expect(draft.status, JSON.stringify(draft.body)).toBe(201);
    const open = await post(`/api/v1/invoices/${draft.body.data.id}/finalize`);
    expect(open.status).toBe(200);
    return open.body.data;
  };
  const eventsOf = async (id: string) =>
    (await harness.sql<{ envelope: EventEnvelope<{ object: { amount_paid: number; amount_remaining: number; status: string } }> }>(
      `select envelope from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`,
      [id],
    )).map(({ envelope }) => envelope);

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    customer = await catalogSeeder(harness, api.workspaceId).customer();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('records partial payments; amount_paid and amount_remaining follow; the last makes it paid and fires invoice.paid once', async () => {
    const invoice = await openInvoice(100_000);
    expect(invoice).toMatchObject({ amount_due: 100_000, amount_paid: 0, amount_remaining: 100_000 });
    expect(invoice.remittance_reference).toMatch(/^RF\d{2}INV20260001$/);

    const first = await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 30_000, paid_on: '2026-11-20', payment_reference: 'TRX-1' });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({
      object: 'payment',
      livemode: true,
      invoice: invoice.id,
      amount: 30_000,
      currency: 'EUR',
      paid_at: '2026-11-20T00:00:00.000Z',
      payment_reference: 'TRX-1',
      method: 'bank_transfer',
      bank_statement_entry: null,
    });
    expect(first.body.data.id).toMatch(/^pay_[0-9a-f]{32}$/);
    let read = (await api.call('GET', `/api/v1/invoices/${invoice.id}`)).body.data;
    expect(read).toMatchObject({ status: 'open', amount_due: 100_000, amount_paid: 30_000, amount_remaining: 70_000, paid_at: null });

    // Overpayment: 400, and nothing changed.
    const over = await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 70_001 });
    expect(over.status).toBe(400);
    expect(over.body.errors).toEqual([{ path: 'amount', message: 'is above amount_remaining (70000)' }]);
    expect((await api.call('GET', `/api/v1/invoices/${invoice.id}`)).body.data).toEqual(read);

    // A partly paid invoice cannot be voided.
    const voided = await post(`/api/v1/invoices/${invoice.id}/void`);
    expect(voided.status).toBe(409);
    expect(voided.body.code).toBe('invalid_state');

    const cash = await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 20_000, method: 'cash' });
    expect(cash.status).toBe(201);
    // pay records what is left.
    const paid = await post(`/api/v1/invoices/${invoice.id}/pay`, { payment_reference: 'REST' });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.data).toMatchObject({ status: 'paid', amount_due: 0, amount_paid: 100_000, amount_remaining: 0, payment_reference: 'REST', paid_at: '2026-11-22T10:00:00.000Z' });

    const payments = await api.call('GET', `/api/v1/invoices/${invoice.id}/payments`);
    expect(payments.status).toBe(200);
    expect(payments.body.data.map((payment: { amount: number; method: string }) => [payment.amount, payment.method])).toEqual([
      [30_000, 'bank_transfer'],
      [20_000, 'cash'],
      [50_000, 'bank_transfer'],
    ]);
    expect(payments.body.next_cursor).toBeNull();

    const again = await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 1 });
    expect(again.status).toBe(409);

    const events = await eventsOf(invoice.id);
    const types = events.map((event) => event.type).filter((type) => type !== 'billing.invoice.created' && type !== 'billing.invoice.finalized');
    expect(types).toEqual(['billing.invoice.payment_recorded', 'billing.invoice.payment_recorded', 'billing.invoice.payment_recorded', 'billing.invoice.paid']);
    expect(events.filter((event) => event.type === 'billing.invoice.payment_recorded').map((event) => event.data.object.amount_remaining)).toEqual([70_000, 50_000, 0]);
    const timeline = await api.call('GET', `/api/v1/invoices/${invoice.id}/timeline`);
    expect(timeline.body.data.filter((entry: { type: string }) => entry.type === 'paid')).toHaveLength(1);
  });

  it('refuses payments on drafts and void invoices, in the future, of 0 and on unknown invoices', async () => {
    const draft = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'Audit', unit_amount: 1_000 }] }, { 'x-idempotency-key': `key-${++keys}` });
    expect((await post(`/api/v1/invoices/${draft.body.data.id}/payments`, { amount: 1 })).status).toBe(409);
    const invoice = await openInvoice(1_000);
    expect((await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 0 })).status).toBe(400);
    expect((await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 1, paid_on: '2026-11-23' })).status).toBe(400);
    expect((await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 1, method: 'bitcoin' })).status).toBe(400);
    expect((await post(`/api/v1/invoices/${invoice.id}/void`)).status).toBe(200);
    expect((await post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 1 })).status).toBe(409);
    expect((await post('/api/v1/invoices/in_0190f3e2c1b27a8e9d1f3c4b5a697887/payments', { amount: 1 })).status).toBe(404);
    expect((await api.call('GET', '/api/v1/invoices/in_0190f3e2c1b27a8e9d1f3c4b5a697887/payments')).status).toBe(404);
  });

  it('20 concurrent payments of a quarter each: exactly 4 recorded, one invoice.paid, Σ payments = amount_paid', async () => {
    const invoice = await openInvoice(100_000);
    const results = await Promise.all(Array.from({ length: 20 }, () => post(`/api/v1/invoices/${invoice.id}/payments`, { amount: 25_000 })));
    const statuses = results.map((result) => result.status).sort();
    expect(statuses.filter((status) => status === 201)).toHaveLength(4);
    expect(statuses.filter((status) => status === 409)).toHaveLength(16);
    const [sums] = await harness.sql<{ total: string; count: string }>('select sum(amount) as total, count(*) as count from billing.payments where invoice_id = ?', [
      invoice.id.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    ]);
    expect(Number(sums!.total)).toBe(100_000);
    expect(Number(sums!.count)).toBe(4);
    const read = (await api.call('GET', `/api/v1/invoices/${invoice.id}`)).body.data;
    expect(read).toMatchObject({ status: 'paid', amount_paid: 100_000, amount_remaining: 0 });
    const events = await eventsOf(invoice.id);
    expect(events.filter((event) => event.type === 'billing.invoice.paid')).toHaveLength(1);
    expect(events.filter((event) => event.type === 'billing.invoice.payment_recorded')).toHaveLength(4);
  });

  it('replays a keyed payment instead of recording it twice', async () => {
    const invoice = await openInvoice(10_000);
    const headers = { 'x-idempotency-key': `key-replay-${invoice.id}` };
    const first = await api.call('POST', `/api/v1/invoices/${invoice.id}/payments`, { amount: 1_000 }, headers);
    const second = await api.call('POST', `/api/v1/invoices/${invoice.id}/payments`, { amount: 1_000 }, headers);
    expect(first.status).toBe(201);
    expect(second.body).toEqual(first.body);
    expect((await api.call('GET', `/api/v1/invoices/${invoice.id}`)).body.data.amount_paid).toBe(1_000);
  });
});
