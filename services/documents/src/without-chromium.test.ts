import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, newWorkspace, startDocuments, type DocumentsHarness } from '../test/harness.ts';
import { makeInvoice } from '../test/support/invoices.ts';

let sut: DocumentsHarness;

beforeAll(async () => {
  sut = await startDocuments('documents_no_chromium', { rendering: { unavailableBecause: 'no Chromium on the machine' } });
});

afterAll(async () => {
  await sut?.close();
});

describe('without a Chromium', () => {
  it('answers PDF requests with 503 and says why, while the public page still shows the invoice', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());

    const pdf = expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`), 503, 'unavailable');
    expect(pdf.detail).toMatch(/no Chromium on the machine.*CHROMIUM_PATH/);
    expectProblem(await sut.get(`/i/${invoice.public_url_token}/pdf`), 503, 'unavailable');

    const page = await sut.get(`/i/${invoice.public_url_token}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('INV/2026/0042');
    expect(page.body).not.toContain('SHA-256');
  });

  it('still tells a draft (400) and an unknown invoice (404) apart', async () => {
    const workspaceId = newWorkspace();
    const draft = sut.billing.put(workspaceId, makeInvoice({ status: 'draft', number: null, business_snapshot: null, customer_snapshot: null }));
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${draft.id}/pdf`), 400, 'invalid_request');
    expectProblem(await sut.getAs(workspaceId, '/api/v1/invoices/in_00000000000000000000000000000000/pdf'), 404, 'not_found');
  });
});
