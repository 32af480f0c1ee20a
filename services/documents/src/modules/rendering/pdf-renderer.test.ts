import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRenderer } from '../../../test/harness.ts';
import { makeInvoice } from '../../../test/support/invoices.ts';
import { pdfInfo, pdfText } from '../../../test/support/pdf-text.ts';
import { createInvoicePrinter } from './invoice-printer.ts';
import { toInvoiceDocumentView } from './invoice-view.domain.ts';
import type { PdfRenderer } from './pdf-renderer.ts';
import { loadTemplates } from './templates.ts';

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

/** Chromium processes that are children of this test process (its browser and renderers). */
const browserProcesses = (): number[] =>
  readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid;
      } catch {
        return false;
      }
    })
    .map(Number);

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
      expect(cold.templateVersion).toBe('v1');
    } finally {
      await fresh.close();
    }
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
});
