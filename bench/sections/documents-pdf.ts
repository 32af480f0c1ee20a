import { randomUUID } from 'node:crypto';
import { dataOf, Invoice, parsePublicId } from '@invoicing/contracts';
import { INTERNAL_HEADERS } from '@invoicing/service-kit/internal-headers';
import { resolveChromium } from '../../services/documents/src/modules/rendering/chromium-executable.ts';
import { createInvoicePrinter, type InvoicePrinter } from '../../services/documents/src/modules/rendering/invoice-printer.ts';
import { createChromiumPdfRenderer, type PdfRenderer } from '../../services/documents/src/modules/rendering/pdf-renderer.ts';
import { loadTemplates } from '../../services/documents/src/modules/rendering/templates.ts';
import { renderExport } from '../../services/documents/src/modules/einvoices/invoice-export.service.ts';
import type { BenchContext, BenchSection } from '../section.ts';

/** The targets: a warm render at most 0.15x a cold one; a stored PDF served at least 50x faster than a cold render. */
const TARGETS = { maxWarmToCold: 0.15, minColdToStored: 50 };
const CONCURRENCY = 4;
/** The documents service's default page pool (PDF_PAGE_POOL_SIZE). */
const PAGE_POOL_SIZE = 2;
const COLD_SAMPLES = 7;

const mark = (ok: boolean) => (ok ? 'pass' : 'FAIL');
const ms = (value: number) => `${value.toFixed(1)} ms`;

const percentile = (samples: readonly number[], p: number): number => {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};

const timed = async (work: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await work();
  return performance.now() - started;
};

/** Runs `work` one at a time for about `seconds` (at least `min` times) and returns each duration. */
const sampleFor = async (seconds: number, min: number, work: () => Promise<unknown>): Promise<number[]> => {
  const samples: number[] = [];
  const until = performance.now() + seconds * 1000;
  while (samples.length < min || (performance.now() < until && samples.length < 10_000)) samples.push(await timed(work));
  return samples;
};

const call = async (context: BenchContext, key: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${context.gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, 'idempotency-key': randomUUID(), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const json = (await response.json()) as { data?: unknown };
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(json)}`);
  return json;
};

/** A finalized invoice of realistic size, as billing serves it. */
const seedInvoice = async (context: BenchContext, key: string) => {
  await call(context, key, 'PATCH', '/api/v1/account', {
    business_name: 'Benchmark Studio GmbH',
    address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
    tax_id: 'DE123456789',
    email: 'billing@bench.example',
    phone: '+49 221 1234567',
    contact_name: 'Accounts receivable',
    payment_account: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Benchmark Studio GmbH' },
    payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00',
  });
  const customer = (await call(context, key, 'POST', '/api/v1/customers', { name: 'Müller & Söhne GmbH', email: 'ap@mueller.example', buyer_reference: '04011000-12345-34', address: { line1: 'Domplatz 5', city: 'Düsseldorf', postal_code: '40213', country: 'DE' } })) as { data: { id: string } };
  const items = Array.from({ length: 12 }, (_, i) => ({ description: `Service line ${i + 1}`, quantity: i + 1, unit_amount: 12_500 + i * 100, tax_rate: i % 3 === 0 ? 7 : 19 }));
  const draft = (await call(context, key, 'POST', '/api/v1/invoices', { customer: customer.data.id, currency: 'EUR', days_until_due: 30, items })) as { data: { id: string } };
  await call(context, key, 'POST', `/api/v1/invoices/${draft.data.id}/finalize`);
  return dataOf(Invoice).parse(await call(context, key, 'GET', `/api/v1/invoices/${draft.data.id}`)).data;
};

const newRenderer = (executablePath: string, shellHtml: string, pagePoolSize: number): PdfRenderer =>
  createChromiumPdfRenderer({ executablePath, shellHtml, pagePoolSize, renderTimeoutMs: 60_000 });

/** PDFs finished per second with `concurrency` renders always in flight, for about `seconds`. */
const throughput = async (printer: InvoicePrinter, invoice: Invoice, concurrency: number, seconds: number): Promise<number> => {
  let done = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        await printer.print(invoice);
        done += 1;
      }
    }),
  );
  return done / ((performance.now() - started) / 1000);
};

/**
 * Invoice PDFs: a stored one served through the gateway, against printing one on a warm browser
 * (the documents service's renderer and templates, in this process) and on a browser launched
 * for it; and how many a warm renderer prints per second with four renders in flight.
 */
export const documentsPdf: BenchSection = {
  name: 'documents',
  services: ['catalog', 'billing', 'documents'],
  run: async (context) => {
    const chromium = await resolveChromium(process.env.CHROMIUM_PATH);
    if (!chromium.found) throw new Error(`the PDF benchmark needs Chromium: ${chromium.reason}`);
    const minted = await context.mintKey('bench-documents', 'all');
    const { key } = minted;
    context.progress('seeding a finalized invoice');
    const invoice = await seedInvoice(context, key);
    const pdfUrl = `${context.gatewayUrl}/api/v1/invoices/${invoice.id}/pdf`;
    const getStored = async () => {
      const response = await fetch(pdfUrl, { headers: { authorization: `Bearer ${key}` } });
      const bytes = await response.arrayBuffer();
      if (response.status !== 200 || bytes.byteLength === 0) throw new Error(`GET ${pdfUrl} answered ${response.status}`);
    };
    await getStored();
    // What the gateway adds to a request it forwards: the same GET straight at documents.
    const directUrl = `${context.serviceUrl('documents')}/api/v1/invoices/${invoice.id}/pdf`;
    const directHeaders = {
      [INTERNAL_HEADERS.token]: context.internalToken,
      [INTERNAL_HEADERS.workspaceId]: parsePublicId('workspace', minted.workspace_id) ?? minted.workspace_id,
      [INTERNAL_HEADERS.apiKeyId]: parsePublicId('apiKey', minted.key_id) ?? minted.key_id,
    };
    const getStoredDirectly = async () => {
      const response = await fetch(directUrl, { headers: directHeaders });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`GET ${directUrl} answered ${response.status}`);
    };

    context.progress('GET .../pdf of a stored PDF');
    await sampleFor(context.warmupSeconds, 5, getStored);
    const stored = await sampleFor(context.durationSeconds, 50, getStored);
    const storedDirectly = await sampleFor(context.durationSeconds, 50, getStoredDirectly);

    // E-invoices: stored at finalization and served like the PDF, against writing them on demand.
    const getFrom = (url: string) => async () => {
      const response = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
      const bytes = await response.arrayBuffer();
      if (response.status !== 200 || bytes.byteLength === 0) throw new Error(`GET ${url} answered ${response.status}: ${Buffer.from(bytes).toString('utf8')}`);
    };
    const getUbl = getFrom(`${context.gatewayUrl}/api/v1/invoices/${invoice.id}/einvoice?syntax=ubl&profile=xrechnung`);
    const getFacturx = getFrom(`${pdfUrl}?format=facturx`);
    // What an on-demand export would fetch first: the invoice from billing, through the same kind of hop.
    const getInvoice = getFrom(`${context.gatewayUrl}/api/v1/invoices/${invoice.id}`);
    context.progress('GET .../einvoice and .../pdf?format=facturx of stored exports');
    await sampleFor(context.warmupSeconds, 5, async () => Promise.all([getUbl(), getFacturx()]));
    const storedUbl = await sampleFor(context.durationSeconds, 50, getUbl);
    const storedFacturx = await sampleFor(context.durationSeconds, 50, getFacturx);
    const invoiceRead = await sampleFor(context.durationSeconds, 50, getInvoice);
    const storedPdfBytes = Buffer.from(await (await fetch(pdfUrl, { headers: { authorization: `Bearer ${key}` } })).arrayBuffer());
    const writeUbl = await sampleFor(context.durationSeconds, 50, () => renderExport(invoice, 'ubl-xrechnung', async () => storedPdfBytes));
    const writeFacturx = await sampleFor(context.durationSeconds, 20, () => renderExport(invoice, 'facturx', async () => storedPdfBytes));

    const templates = loadTemplates();
    const warmRenderer = newRenderer(chromium.executablePath, templates.pdfShell, PAGE_POOL_SIZE);
    try {
      await warmRenderer.warm();
      const printer = createInvoicePrinter({ renderer: warmRenderer }, templates);
      context.progress('renders on a warm browser');
      await sampleFor(context.warmupSeconds, 5, () => printer.print(invoice));
      const warm = await sampleFor(context.durationSeconds, 20, () => printer.print(invoice));
      const printFacturx = await sampleFor(context.durationSeconds, 20, async () => renderExport(invoice, 'facturx', async () => (await printer.print(invoice)).bytes));

      context.progress(`${COLD_SAMPLES} renders that each launch a browser`);
      const cold: number[] = [];
      for (let i = 0; i < COLD_SAMPLES; i++) {
        const renderer = newRenderer(chromium.executablePath, templates.pdfShell, 1);
        try {
          cold.push(await timed(() => createInvoicePrinter({ renderer }, templates).print(invoice)));
        } finally {
          await renderer.close();
        }
      }

      context.progress(`${CONCURRENCY} renders in flight on ${PAGE_POOL_SIZE} pages`);
      const perSecond = await throughput(printer, invoice, CONCURRENCY, context.durationSeconds);

      const warmToCold = percentile(warm, 50) / percentile(cold, 50);
      const coldToStored = percentile(cold, 50) / percentile(stored, 50);
      const row = (what: string, samples: number[]) => [what, String(samples.length), ms(percentile(samples, 50)), ms(percentile(samples, 99))];
      return {
        serverErrors: 0,
        targets: [],
        tables: [
          {
            title: `Invoice PDFs (${invoice.lines.data.length} lines, ${context.durationSeconds} s per measurement after ${context.warmupSeconds} s warm-up, one request at a time)`,
            columns: ['measurement', 'samples', 'p50', 'p99'],
            rows: [
              row('GET /api/v1/invoices/:id/pdf, stored, through the gateway', stored),
              row('the same GET straight at documents', storedDirectly),
              row('render on a warm browser (page reused)', warm),
              row('render launching a browser cold', cold),
              row('GET .../einvoice (UBL, XRechnung), stored, through the gateway', storedUbl),
              row('GET .../pdf?format=facturx, stored, through the gateway', storedFacturx),
              row('GET /api/v1/invoices/:id through the gateway (what on demand reads first)', invoiceRead),
              row('write UBL XRechnung on demand (in process)', writeUbl),
              row('make Factur-X from the stored PDF on demand (in process)', writeFacturx),
              row('print + make Factur-X on demand, warm browser (in process)', printFacturx),
            ],
            notes: [
              `warm / cold render (p50): ${warmToCold.toFixed(3)}x, target <= ${TARGETS.maxWarmToCold}x: ${mark(warmToCold <= TARGETS.maxWarmToCold)}`,
              `cold render / stored GET (p50): ${coldToStored.toFixed(0)}x faster, target >= ${TARGETS.minColdToStored}x: ${mark(coldToStored >= TARGETS.minColdToStored)}`,
              `Factur-X on demand (warm print + attach, p50) / stored GET (p50): ${(percentile(printFacturx, 50) / percentile(storedFacturx, 50)).toFixed(1)}x; UBL on demand (billing read + write, p50) / stored GET (p50): ${((percentile(invoiceRead, 50) + percentile(writeUbl, 50)) / percentile(storedUbl, 50)).toFixed(1)}x`,
              `PDFs rendered per second, ${CONCURRENCY} concurrent on a warm browser with ${PAGE_POOL_SIZE} pages: ${perSecond.toFixed(1)}`,
              `Renders use the documents service's own templates, renderer and Chromium (${chromium.source}) in the benchmark process. The stored GET goes through the gateway to documents, which serves it from memory after the first read from PostgreSQL (PDF_CACHE_MB). The load generator shares the machine's cores with the services.`,
            ],
          },
        ],
      };
    } finally {
      await warmRenderer.close();
    }
  },
};
