import { createHash } from 'node:crypto';
import type { Invoice } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, newWorkspace, startDocuments, type DocumentsHarness } from '../../../test/harness.ts';
import { CURRENCY_CASES, PARTY_ROWS } from '../../../test/support/currency-cases.ts';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { pdfInfo, pdfText } from '../../../test/support/pdf-text.ts';

let sut: DocumentsHarness;

beforeAll(async () => {
  sut = await startDocuments('documents_pdf');
});

afterAll(async () => {
  await sut?.close();
});

/** Text as a reader extracts it, with runs of blanks (the layout's columns) as one space. */
const readable = async (pdf: Buffer) => (await pdfText(pdf)).replace(/[ \t\u00a0]+/g, ' ');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('GET /api/v1/invoices/:id/pdf', () => {
  it.each(CURRENCY_CASES)('prints everything a $currency invoice must show, to the minor unit', async ({ currency, lines, expected }) => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice({ currency, lineInputs: lines }));
    const reply = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);

    expect(reply.statusCode, reply.body).toBe(200);
    expect(reply.headers['content-type']).toBe('application/pdf');
    expect(reply.headers['content-disposition']).toContain('filename="Invoice-INV-2026-0042.pdf"');
    expect(reply.headers.etag).toBe(`"${sha256(reply.rawPayload)}"`);
    const text = await readable(reply.rawPayload);
    for (const item of [...PARTY_ROWS, 'Invoice number INV/2026/0042', 'Issue date 20 Nov 2026', 'Due date 20 Dec 2026', 'Delivery within 14 days.', ...expected]) {
      expect(text).toContain(item);
    }
  });

  it('serves the stored bytes again, and 304 to a client that holds them', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());
    const first = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    const printsAfterFirst = sut.prints();
    const second = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5')}/pdf`);
    const revalidated = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`, { 'if-none-match': first.headers.etag as string });

    expect(second.statusCode).toBe(200);
    expect(second.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(sut.prints()).toBe(printsAfterFirst);
    expect(revalidated.statusCode).toBe(304);
    expect(revalidated.rawPayload.length).toBe(0);
    expect(revalidated.headers.etag).toBe(first.headers.etag);
  });

  it('never changes once stored, whatever billing says about the invoice later', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());
    const before = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    sut.billing.put(workspaceId, { ...invoice, status: 'paid', customer_name: 'Renamed AG', amount_due: 0, paid_at: '2026-12-01T00:00:00.000Z' });
    const after = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
  });

  it('prints a customer called <script> as text', async () => {
    const workspaceId = newWorkspace();
    const base = makeInvoice();
    const invoice = sut.billing.put(workspaceId, { ...base, customer_snapshot: { ...base.customer_snapshot!, name: '<script>alert("x")</script> & Co' } });
    const reply = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    expect(await readable(reply.rawPayload)).toContain('<script>alert("x")</script> & Co');
  });

  it('prints a US seller on Letter and a German one on A4, with the fonts embedded and the finalization as the date', async () => {
    const workspaceId = newWorkspace();
    const base = makeInvoice();
    const american = sut.billing.put(workspaceId, {
      ...makeInvoice(),
      business_snapshot: { ...base.business_snapshot!, address: { line1: '1 Main St', line2: null, city: 'Boston', state: 'MA', postal_code: '02110', country: 'US' } },
    });
    const german = sut.billing.put(workspaceId, makeInvoice());
    const [letter, a4] = await Promise.all([american, german].map(async (invoice) => (await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`)).rawPayload));
    expect((await pdfInfo(letter!))['Page size']).toMatch(/^612(\.\d+)? x 792(\.\d+)? pts \(letter\)/);
    const info = await pdfInfo(a4!);
    expect(info['Page size']).toMatch(/\(A4\)/);
    expect(info.Tagged).toBe('yes');
    expect(info.CreationDate).toMatch(/Nov 20 09:30:00 2026/);
  });

  it('refuses a draft with 400 and answers 404 for an unknown invoice or another workspace’s', async () => {
    const workspaceId = newWorkspace();
    const draft: Invoice = sut.billing.put(workspaceId, makeInvoice({ status: 'draft', number: null, business_snapshot: null, customer_snapshot: null, public_url_token: null, public_url: null, finalized_at: null }));
    const theirWorkspace = newWorkspace();
    const theirs = sut.billing.put(theirWorkspace, makeInvoice());
    expect((await sut.getAs(theirWorkspace, `/api/v1/invoices/${theirs.id}/pdf`)).statusCode).toBe(200);
    const prints = sut.prints();

    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${draft.id}/pdf`), 400, 'invalid_request');
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${theirs.id}/pdf`), 404, 'not_found');
    expectProblem(await sut.getAs(workspaceId, '/api/v1/invoices/in_00000000000000000000000000000000/pdf'), 404, 'not_found');
    expectProblem(await sut.getAs(workspaceId, '/api/v1/invoices/cus_0190f3e2c1b27a8e9d1f3c4b5a697887/pdf'), 404, 'not_found');
    expect(sut.prints()).toBe(prints);
  });

  it('is refused without the gateway’s credential', async () => {
    const reply = await sut.app.inject({ method: 'GET', url: '/api/v1/invoices/in_00000000000000000000000000000000/pdf' });
    expectProblem(reply, 401, 'unauthenticated');
  });
});
