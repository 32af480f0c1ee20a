import { createHash } from 'node:crypto';
import { AppError } from '@invoicing/service-kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRenderer } from '../../../test/harness.ts';
import { browserProcesses, replaceableChromium } from '../../../test/support/browser-processes.ts';
import { makeInvoice, makeRichInvoice } from '../../../test/support/invoices.ts';
import { pdfInfo, pdfText } from '../../../test/support/pdf-text.ts';
import { resolveChromium } from './chromium-executable.ts';
import { createInvoicePrinter } from './invoice-printer.ts';
import { toInvoiceDocumentView } from './invoice-view.domain.ts';
import { createChromiumPdfRenderer, type PdfRenderer } from './pdf-renderer.ts';
import { loadTemplates, TEMPLATE_VERSION } from './templates.ts';

let renderer: PdfRenderer;
const templates = loadTemplates();

beforeAll(async () => {
  renderer = await startTestRenderer(2);
  await renderer.warm();
});

afterAll(async () => {
  await renderer?.close();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('printing an invoice', () => {
  it('gives byte-identical PDFs from the same snapshot: on a reused page, on another page and on a newly launched browser', async () => {
    const printer = createInvoicePrinter({ renderer }, templates);
    const invoice = makeInvoice();
    const warm = await Promise.all([printer.print(invoice), printer.print(invoice), printer.print(invoice)]);
    const again = await printer.print(invoice);
    const fresh = await startTestRenderer(1);
    try {
      const cold = await createInvoicePrinter({ renderer: fresh }, templates).print(invoice);
      const digests = [...warm, again, cold].map((printed) => printed.sha256);
      expect(new Set(digests).size).toBe(1);
      expect(digests[0]).toBe(sha256(cold.bytes));
      expect(cold.templateVersion).toBe(TEMPLATE_VERSION);
    } finally {
      await fresh.close();
    }
  });

  it('gives byte-identical PDFs of an invoice with every EN 16931 term it prints', async () => {
    const printer = createInvoicePrinter({ renderer }, templates);
    const invoice = makeRichInvoice({ locale: 'de-DE' });
    const [first, second] = await Promise.all([printer.print(invoice), printer.print(invoice)]);
    expect(first.sha256).toBe(second.sha256);
  });

  it('prints different invoices differently on the same pages', async () => {
    const printer = createInvoicePrinter({ renderer }, templates);
    const [a, b] = await Promise.all([printer.print(makeInvoice({ number: 'INV/2026/0001' })), printer.print(makeInvoice({ number: 'INV/2026/0002' }))]);
    expect(a.sha256).not.toBe(b.sha256);
    expect(await pdfText(b.bytes)).toContain('INV/2026/0002');
  });

  it('keeps a long invoice readable across pages, the table header repeated', async () => {
    const lineInputs = Array.from({ length: 120 }, (_, i) => ({ description: `Item ${i + 1}`, quantity: i + 1, unit_amount: 1_000 + i, tax_rate: i % 2 ? 19 : 7 }));
    const printed = await createInvoicePrinter({ renderer }, templates).print(makeInvoice({ lineInputs }));
    const pages = (await pdfText(printed.bytes)).split('\f').filter((page) => /Item \d+/.test(page));
    expect(Number((await pdfInfo(printed.bytes)).Pages)).toBeGreaterThan(2);
    expect(pages.length).toBeGreaterThan(2);
    for (const page of pages) expect(page).toContain('DESCRIPTION');
    expect(pages.join('\n').match(/Item \d+ /g)).toHaveLength(120);
  });

  it('queues renders beyond its pages, and fails the waiting ones when it closes instead of leaving them hanging', async () => {
    const local = await startTestRenderer(1);
    const job = templates.pdfJob(toInvoiceDocumentView(makeInvoice()));
    const queued = await Promise.all([1, 2, 3, 4].map(() => local.render(job)));
    expect(queued.map((pdf) => pdf.subarray(0, 5).toString())).toEqual(['%PDF-', '%PDF-', '%PDF-', '%PDF-']);

    const inFlight = Promise.allSettled([local.render(job), local.render(job), local.render(job)]);
    await local.close();
    const settled = await inFlight;
    expect(settled.filter((outcome) => outcome.status === 'rejected').length).toBeGreaterThanOrEqual(2);
    await expect(local.render(job)).rejects.toThrow(/closed/);
  });

  it('launches a new browser when the one it had dies, and prints on', async () => {
    const others = new Set(browserProcesses());
    const local = await startTestRenderer(1);
    try {
      await local.warm();
      const its = browserProcesses().filter((pid) => !others.has(pid));
      expect(its).toHaveLength(1);
      for (const pid of its) process.kill(pid, 'SIGKILL');
      const job = templates.pdfJob(toInvoiceDocumentView(makeInvoice()));
      // The render in flight when the browser died may fail; the next ones launch a new browser.
      await local.render(job).catch(() => undefined);
      const after = await local.render(job);
      expect(after.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await local.close();
    }
  });

  it('launches no browser until the first render, then one for every render that arrives while it starts', async () => {
    const others = new Set(browserProcesses());
    const local = await startTestRenderer(2);
    try {
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(browserProcesses().filter((pid) => !others.has(pid))).toEqual([]);
      const job = templates.pdfJob(toInvoiceDocumentView(makeInvoice()));
      const pdfs = await Promise.all([1, 2, 3, 4, 5].map(() => local.render(job)));
      expect(pdfs.map((pdf) => pdf.subarray(0, 5).toString())).toEqual(Array(5).fill('%PDF-'));
      expect(browserProcesses().filter((pid) => !others.has(pid))).toHaveLength(1);
    } finally {
      await local.close();
    }
    expect(browserProcesses().filter((pid) => !others.has(pid))).toEqual([]);
  });

  it('fails every render waiting on a browser that cannot start with a 503 unavailable, and launches again for the next', async () => {
    const chromium = await resolveChromium(process.env.CHROMIUM_PATH);
    if (!chromium.found) throw new Error(chromium.reason);
    const browser = replaceableChromium(chromium.executablePath);
    const errors: string[] = [];
    const local = createChromiumPdfRenderer({
      executablePath: browser.executablePath,
      shellHtml: templates.pdfShell,
      pagePoolSize: 2,
      renderTimeoutMs: 20_000,
      onError: (_, context) => errors.push(context),
    });
    const job = templates.pdfJob(toInvoiceDocumentView(makeInvoice()));
    try {
      const outcomes = await Promise.allSettled([1, 2, 3, 4].map(() => local.render(job)));
      for (const outcome of outcomes) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason as AppError;
        expect(reason).toBeInstanceOf(AppError);
        expect(reason.status).toBe(503);
        expect(reason.code).toBe('unavailable');
        expect(reason.headers).toEqual({ 'retry-after': '5' });
      }
      // The four renders shared one launch, which failed once.
      expect(errors).toEqual(['launching Chromium']);

      browser.mend();
      const pdf = await local.render(job);
      expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
    } finally {
      await local.close();
      browser.remove();
    }
  });
});
