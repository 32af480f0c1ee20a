import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, newWorkspace, startDocuments, type DocumentsHarness } from '../test/harness.ts';
import { browserProcesses, replaceableChromium } from '../test/support/browser-processes.ts';
import { makeInvoice } from '../test/support/invoices.ts';
import { resolveChromium } from './modules/rendering/chromium-executable.ts';
import { createChromiumPdfRenderer, type PdfRenderer } from './modules/rendering/pdf-renderer.ts';
import { loadTemplates } from './modules/rendering/templates.ts';

let sut: DocumentsHarness;
let failing: DocumentsHarness;
let browser: ReturnType<typeof replaceableChromium>;
let renderer: PdfRenderer;

beforeAll(async () => {
  sut = await startDocuments('documents_no_chromium', { rendering: { unavailableBecause: 'no Chromium on the machine' } });
  const chromium = await resolveChromium(process.env.CHROMIUM_PATH);
  if (!chromium.found) throw new Error(`These tests print real PDFs and need Chromium: ${chromium.reason}`);
  browser = replaceableChromium(chromium.executablePath);
  renderer = createChromiumPdfRenderer({ executablePath: browser.executablePath, shellHtml: loadTemplates().pdfShell, pagePoolSize: 2, renderTimeoutMs: 20_000 });
  failing = await startDocuments('documents_chromium_fails', { rendering: { renderer } });
});

afterAll(async () => {
  await sut?.close();
  await failing?.close();
  await renderer?.close();
  browser?.remove();
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

describe('with a Chromium that does not start', () => {
  it('answers the PDF requests waiting on it with 503 and Retry-After, and prints once the browser starts again', async () => {
    const workspaceId = newWorkspace();
    const invoice = failing.billing.put(workspaceId, makeInvoice());
    browser.fail();

    const answers = await Promise.all([1, 2, 3].map(() => failing.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`)));
    for (const answer of answers) {
      const problem = expectProblem(answer, 503, 'unavailable');
      expect(answer.headers['retry-after']).toBe('5');
      expect(problem.detail).toBe('Chromium could not be started to print this PDF; try again shortly.');
    }
    expect(browserProcesses()).toEqual([]);

    browser.mend();
    const pdf = await failing.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(browserProcesses()).toHaveLength(1);
  });
});
