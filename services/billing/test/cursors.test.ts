import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

type Page = { data: { id?: string }[]; next_cursor: string | null };

/** The position of a cursor, re-encoded with a made-up timestamp; its tag is kept. */
const movedBack = (cursor: string) => {
  const [position, tag] = cursor.split('.');
  const [, id] = JSON.parse(Buffer.from(position!, 'base64url').toString('utf8')) as [string, string];
  return `${Buffer.from(JSON.stringify(['2000-01-01T00:00:00.000Z', id])).toString('base64url')}.${tag}`;
};

describe('list cursors', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let invoiceIds: string[];
  /** The second page's cursor of the invoice list, and of the first invoice's timeline. */
  let invoicesCursor: string;
  let timelineCursor: string;

  const list = (path: string, client = api) => client.call<Page>('GET', path);
  const expectRefused = async (path: string, client = api) => {
    expect(await list(path, client)).toMatchObject({
      status: 400,
      body: { code: 'invalid_request', detail: 'cursor was not issued by this API.', errors: [{ path: 'cursor' }] },
    });
  };

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    const customer = await harness.catalog.call<{ id: string }>('POST', '/api/v1/customers', { workspaceId: api.workspaceId }, { name: 'Pager Ltd' });
    invoiceIds = [];
    for (let n = 0; n < 3; n += 1) {
      const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, currency: 'EUR', items: [{ description: `Line ${n}`, unit_amount: 100 }] });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      invoiceIds.push(created.body.data.id);
    }
    for (const notes of ['first', 'second']) {
      harness.clock.advance(1_000);
      expect((await api.call('PATCH', `/api/v1/invoices/${invoiceIds[0]}`, { notes })).status).toBe(200);
    }
    invoicesCursor = (await list('/api/v1/invoices?limit=2')).body.next_cursor!;
    timelineCursor = (await list(`/api/v1/invoices/${invoiceIds[0]}/timeline?limit=2`)).body.next_cursor!;
    expect([invoicesCursor, timelineCursor]).toEqual([expect.any(String), expect.any(String)]);
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('pages through invoices and a timeline with the cursors it issued, on any replica', async () => {
    expect((await list(`/api/v1/invoices?limit=2&cursor=${invoicesCursor}`)).body).toEqual({ data: [expect.objectContaining({ id: invoiceIds[0] })], next_cursor: null });
    const timeline = await list(`/api/v1/invoices/${invoiceIds[0]}/timeline?limit=2&cursor=${timelineCursor}`);
    expect(timeline.body).toEqual({ data: [expect.objectContaining({ type: 'updated' })], next_cursor: null });

    // Replicas share the internal token, so a cursor one issued pages on another.
    const replica = workspaceClient(await harness.start(), api.workspaceId);
    expect((await list(`/api/v1/invoices?limit=2&cursor=${invoicesCursor}`, replica)).body.data).toHaveLength(1);
  });

  it('refuses a cursor on another list: the invoices, another invoice’s timeline, another workspace', async () => {
    await expectRefused(`/api/v1/invoices/${invoiceIds[0]}/timeline?cursor=${invoicesCursor}`);
    await expectRefused(`/api/v1/invoices?cursor=${timelineCursor}`);
    await expectRefused(`/api/v1/invoices/${invoiceIds[1]}/timeline?cursor=${timelineCursor}`);
    await expectRefused(`/api/v1/invoices?cursor=${invoicesCursor}`, workspaceClient(harness.service));
  });

  it('refuses a cursor made by hand or altered', async () => {
    const [position] = invoicesCursor.split('.');
    for (const forged of [position, movedBack(invoicesCursor), invoicesCursor.slice(0, -1), `${invoicesCursor}.x`]) {
      await expectRefused(`/api/v1/invoices?cursor=${forged}`);
    }
  });
});
