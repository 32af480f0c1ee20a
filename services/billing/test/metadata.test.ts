import { randomUUID } from 'node:crypto';
import { describeMetadata } from '@invoicing/testing/metadata-suite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INTERNAL_TOKEN, catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness } from './support/billing-harness.ts';

let harness: BillingHarness;
beforeAll(async () => {
  harness = await startBillingHarness();
});
afterAll(async () => {
  await harness?.close();
});

const send = (workspaceId: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown, headers: Record<string, string> = {}) =>
  harness.service.app.inject({
    method,
    url,
    headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': workspaceId, 'x-api-key-id': 'key_test', ...headers },
    ...(body === undefined ? {} : { payload: body as object }),
  });

// One customer per workspace, made through the real catalog the first time a workspace needs it.
const customers = new Map<string, Promise<{ id: string }>>();
const customerOf = (workspaceId: string) => {
  if (!customers.has(workspaceId)) customers.set(workspaceId, catalogSeeder(harness, workspaceId).customer());
  return customers.get(workspaceId)!;
};
const createInvoice = async (workspaceId: string, fields: Record<string, unknown>) =>
  send(workspaceId, 'POST', '/api/v1/invoices', { customer: (await customerOf(workspaceId)).id, currency: 'EUR', items: [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }], ...fields }, { 'x-idempotency-key': randomUUID() });

describeMetadata('invoice', { path: '/api/v1/invoices', send, create: createInvoice });

describe('invoice metadata once finalized', () => {
  it('cannot change: 409 invalid_state, as any edit of a finalized invoice, and it stays as it was', async () => {
    const api = workspaceClient(harness.service);
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH', address: { line1: 'Hauptstraße 1', city: 'Berlin', country: 'de' }, default_currency: 'EUR' });
    const created = (await createInvoice(api.workspaceId, { metadata: { order_id: '6735' } })).json<{ data: { id: string } }>().data;
    const finalized = await api.call('POST', `/api/v1/invoices/${created.id}/finalize`, undefined, { 'x-idempotency-key': randomUUID() });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body.data).toMatchObject({ status: 'open', metadata: { order_id: '6735' } });

    const edit = await api.call('PATCH', `/api/v1/invoices/${created.id}`, { notes: 'late' });
    const metadataEdit = await api.call('PATCH', `/api/v1/invoices/${created.id}`, { metadata: { order_id: '', channel: 'web' } });
    expect([edit.status, edit.body.code]).toEqual([409, 'invalid_state']);
    expect([metadataEdit.status, metadataEdit.body.code]).toEqual([409, 'invalid_state']);
    const after = await api.call('GET', `/api/v1/invoices/${created.id}`);
    expect(after.body.data.metadata).toEqual({ order_id: '6735' });
    expect((await api.call('GET', '/api/v1/invoices?metadata[order_id]=6735')).body.data.map((invoice: { id: string }) => invoice.id)).toEqual([created.id]);
  });
});
