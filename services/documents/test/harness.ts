export { expectProblem } from '@invoicing/testing';
import { randomUUID } from 'node:crypto';
import { parsePublicId, type EventEnvelope, type Invoice, type InvoiceByPublicToken, type PdfFormat } from '@invoicing/contracts';
import { createInProcessBus, migrateDatabase, notFound, OutboxRelay, type Caller } from '@invoicing/service-kit';
import { systemClock } from '@invoicing/service-kit/clock';
import { createTestDatabase } from '@invoicing/testing';
import { buildApp } from '../src/app.ts';
import { DOCUMENTS_SCHEMA, openDocumentsDatabase } from '../src/database.ts';
import { createPdfCache } from '../src/modules/invoice-pdfs/invoice-pdf.service.ts';
import { resolveChromium } from '../src/modules/rendering/chromium-executable.ts';
import { createInvoicePrinter, type PdfRendering } from '../src/modules/rendering/invoice-printer.ts';
import { createChromiumPdfRenderer, type PdfRenderer, type PrintJob } from '../src/modules/rendering/pdf-renderer.ts';
import { loadTemplates } from '../src/modules/rendering/templates.ts';
import type { BillingReader } from '../src/shared/billing.ts';

export const INTERNAL_TOKEN = 'documents-test-internal-token-0123456789';

/**
 * Billing as documents sees it, held in memory: invoices per workspace, found by id (either
 * form) and by public token, as billing's routes would answer.
 */
export const fakeBilling = () => {
  const invoices = new Map<string, { workspaceId: string; invoice: Invoice }>();
  const pdfFormats = new Map<string, PdfFormat>();
  const attachmentContents = new Map<string, Buffer>();
  const calls: string[] = [];
  const reader: BillingReader = {
    invoice: async (caller: Caller, id: string) => {
      calls.push(`invoice ${id}`);
      const stored = invoices.get(parsePublicId('invoice', id) ?? '');
      return stored?.workspaceId === caller.workspaceId ? stored.invoice : undefined;
    },
    invoiceByPublicToken: async (token: string): Promise<InvoiceByPublicToken | undefined> => {
      calls.push(`token ${token}`);
      const stored = [...invoices.values()].find(({ invoice }) => invoice.public_url_token === token);
      return stored && stored.invoice.status !== 'draft' ? { workspace_id: stored.workspaceId, invoice: stored.invoice } : undefined;
    },
    pdfFormat: async (caller: Caller) => {
      calls.push(`account ${caller.workspaceId}`);
      return pdfFormats.get(caller.workspaceId) ?? 'standard';
    },
    attachmentContent: async (workspaceId: string, invoiceId: string, attachmentId: string) => {
      calls.push(`attachment ${attachmentId}`);
      const stored = invoices.get(parsePublicId('invoice', invoiceId) ?? '');
      const content = stored?.workspaceId === workspaceId && stored.invoice.status !== 'draft' ? attachmentContents.get(attachmentId) : undefined;
      if (!content) throw notFound('attachment', attachmentId);
      return content;
    },
  };
  return {
    reader,
    calls,
    /** The workspace's account now has this `pdf_format`. */
    setPdfFormat: (workspaceId: string, format: PdfFormat) => void pdfFormats.set(workspaceId, format),
    /** Billing now holds these bytes for the attachment (`att_…`) its invoice lists. */
    putAttachmentContent: (attachmentId: string, content: Buffer) => void attachmentContents.set(attachmentId, content),
    /** Billing now holds this invoice for the workspace (replacing what it held). */
    put: (workspaceId: string, invoice: Invoice) => {
      invoices.set(parsePublicId('invoice', invoice.id)!, { workspaceId, invoice });
      return invoice;
    },
  };
};
export type FakeBilling = ReturnType<typeof fakeBilling>;

/** The Chromium documents would use on this machine (CHROMIUM_PATH, installed, or bundled). */
export const startTestRenderer = async (pagePoolSize = 2): Promise<PdfRenderer> => {
  const chromium = await resolveChromium(process.env.CHROMIUM_PATH);
  if (!chromium.found) throw new Error(`These tests print real PDFs and need Chromium: ${chromium.reason}`);
  return createChromiumPdfRenderer({ executablePath: chromium.executablePath, shellHtml: loadTemplates().pdfShell, pagePoolSize, renderTimeoutMs: 20_000 });
};

/** Wraps a renderer to count what it prints, so tests can tell a stored PDF from a new print. */
export const countingRenderer = (renderer: PdfRenderer) => {
  let prints = 0;
  return {
    renderer: {
      ...renderer,
      render: (job: PrintJob) => {
        prints += 1;
        return renderer.render(job);
      },
    } satisfies PdfRenderer,
    prints: () => prints,
  };
};

export interface DocumentsHarnessOptions {
  /** What prints PDFs; default: a counting wrapper around a fresh Chromium renderer. */
  rendering?: PdfRendering;
}

/** The documents app on its own fresh, migrated database, with fake billing and its outbox relayed to an in-process bus. */
export const startDocuments = async (label: string, options: DocumentsHarnessOptions = {}) => {
  const database = await createTestDatabase(label);
  const orm = await openDocumentsDatabase(database.url, 8);
  await migrateDatabase(orm, DOCUMENTS_SCHEMA, database.url);
  const ownRenderer = options.rendering ? undefined : await startTestRenderer();
  const counter = countingRenderer(ownRenderer ?? { render: async () => Buffer.alloc(0), warm: async () => {}, close: async () => {} });
  const rendering = options.rendering ?? { renderer: counter.renderer };
  const billing = fakeBilling();
  const bus = createInProcessBus();
  const published: EventEnvelope[] = [];
  await bus.subscribe({ durable: 'test', subject: 'documents.>', handle: async (envelope) => void published.push(envelope) });
  const relay = new OutboxRelay({ orm, schema: DOCUMENTS_SCHEMA, bus, onError: () => {}, pollMs: 20 });
  const templates = loadTemplates();
  const printer = createInvoicePrinter(rendering, templates);
  const app = buildApp({
    orm,
    internalToken: INTERNAL_TOKEN,
    billing: billing.reader,
    printer,
    templates,
    pdfCache: createPdfCache(8 * 1024 * 1024),
    announce: () => relay.nudge(),
    clock: systemClock,
    checkReadiness: async () => {},
  });
  await app.ready();
  relay.start();
  return {
    app,
    orm,
    billing,
    printer,
    /** The Chromium renderer these tests started (none when given `rendering`), to print what a page shows. */
    renderer: ownRenderer,
    published,
    prints: counter.prints,
    /** Every public invoice page of these tests is reached as the gateway would forward it. */
    get: (url: string, headers: Record<string, string> = {}) => app.inject({ method: 'GET', url, headers: { 'x-internal-token': INTERNAL_TOKEN, ...headers } }),
    /** A GET as the gateway forwards it for a key of this workspace. */
    getAs: (workspaceId: string, url: string, headers: Record<string, string> = {}) =>
      app.inject({ method: 'GET', url, headers: { ...gatewayHeaders(workspaceId), ...headers } }),
    close: async () => {
      await relay.stop();
      await app.close();
      await ownRenderer?.close();
      await orm.close();
      await database.drop();
    },
  };
};
export type DocumentsHarness = Awaited<ReturnType<typeof startDocuments>>;

export const gatewayHeaders = (workspaceId: string) => ({
  'x-internal-token': INTERNAL_TOKEN,
  'x-workspace-id': workspaceId,
  'x-api-key-id': 'key_test',
});

export const newWorkspace = (): string => randomUUID();

/** Polls until `condition` holds (bounded), for effects that happen after the response. */
export const waitFor = async (condition: () => boolean, timeoutMs = 10_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
};
