import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { createServiceClient, defineService, eventLogFields } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { DOCUMENTS_SCHEMA, openDocumentsDatabase } from './database.ts';
import { storeFinalizedInvoice } from './modules/finalized-invoices/store-finalized-invoice.ts';
import { attachmentContentFrom } from './modules/einvoices/invoice-export.service.ts';
import { createPdfCache } from './modules/invoice-pdfs/invoice-pdf.service.ts';
import { resolveChromium } from './modules/rendering/chromium-executable.ts';
import { createInvoicePrinter, type PdfRendering } from './modules/rendering/invoice-printer.ts';
import { createChromiumPdfRenderer } from './modules/rendering/pdf-renderer.ts';
import { loadTemplates } from './modules/rendering/templates.ts';
import { billingReader } from './shared/billing.ts';

/** The durable consumer documents reads billing's events with; replicas share it. */
export const FINALIZED_CONSUMER = 'documents';

const PDF_RENDER_BUCKETS_S = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5];

/**
 * Documents as its hosts run it (alone, beside the other services on one bus, or in its tests):
 * the HTTP app, the outbox relay, the consumer of finalized invoices and one Chromium, launched by
 * the first PDF (a finalized invoice's event or a download) rather than at start, so an idle
 * service holds no browser. Closing the app stops its workers, the browser and its pool.
 */
export const documentsService = defineService({
  name: 'documents',
  loadConfig,
  database: { schema: DOCUMENTS_SCHEMA, open: openDocumentsDatabase },
  usesEvents: true,
  outbox: (config) => ({ pollMs: config.OUTBOX_POLL_MS }),
  build: async ({ config, orm, logger, clock, checkReadiness, announce, bus }) => {
    const chromium = await resolveChromium(config.CHROMIUM_PATH);
    const billingClient = createServiceClient({
      baseUrl: config.BILLING_URL,
      name: 'billing',
      internalToken: config.INTERNAL_TOKEN,
      timeoutMs: config.BILLING_TIMEOUT_MS,
    });
    const templates = loadTemplates();
    let observeRender: ((seconds: number) => void) | undefined;
    const rendering: PdfRendering = chromium.found
      ? {
          renderer: createChromiumPdfRenderer({
            executablePath: chromium.executablePath,
            shellHtml: templates.pdfShell,
            pagePoolSize: config.PDF_PAGE_POOL_SIZE,
            renderTimeoutMs: config.PDF_RENDER_TIMEOUT_MS,
            onError: (error, context) => app.log.warn({ err: error, context }, `PDF printing failed (${context})`),
            onRendered: (seconds) => observeRender?.(seconds),
          }),
        }
      : { unavailableBecause: chromium.reason };
    const renderer = 'renderer' in rendering ? rendering.renderer : undefined;
    const printer = createInvoicePrinter(rendering, templates);
    const billing = billingReader(billingClient);
    const app = buildApp({
      orm,
      internalToken: config.INTERNAL_TOKEN,
      billing,
      printer,
      templates,
      pdfCache: createPdfCache(config.PDF_CACHE_MB * 1024 * 1024),
      announce,
      clock,
      checkReadiness,
      logger,
    });
    if (chromium.found) app.log.info({ chromium: chromium.executablePath, source: chromium.source }, 'PDFs print with this Chromium');
    else app.log.warn({ reason: chromium.reason }, 'no Chromium: PDF requests answer 503 until one is configured; the rest works');
    const renderTime = app.metrics.histogram('pdf_render_duration_seconds', 'Time Chromium took to print one invoice PDF.', PDF_RENDER_BUCKETS_S);
    observeRender = (seconds) => renderTime.observe(seconds);
    const onFinalized = storeFinalizedInvoice({ em: orm.em, printer, clock, attachmentContentOf: attachmentContentFrom(billing) });
    // The bus owns the subscription; the browser waits for the first PDF.
    const finalizedConsumer = {
      start: () =>
        bus.subscribe({
          durable: FINALIZED_CONSUMER,
          subject: BILLING_SUBJECTS.invoiceFinalized,
          handle: async (envelope) => {
            const outcome = await onFinalized(envelope);
            if (outcome === 'unreadable') app.log.error(eventLogFields(envelope), 'billing.invoice.finalized breaks its contract; skipped');
            else app.log.info({ ...eventLogFields(envelope), outcome }, 'finalized invoice handled');
          },
        }),
    };
    return { app, workers: [finalizedConsumer], closeAfterWorkers: [renderer, billingClient] };
  },
});

export type DocumentsService = Awaited<ReturnType<typeof documentsService.create>>;
