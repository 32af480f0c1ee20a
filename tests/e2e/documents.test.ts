import { randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parsePublicId } from '@invoicing/contracts';
import pg from 'pg';
import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveChromium } from '../../services/documents/src/modules/rendering/chromium-executable.ts';
import { CURRENCY_CASES, PARTY_ROWS } from '../../services/documents/test/support/currency-cases.ts';
import type { LineInput } from '../../services/documents/test/support/invoices.ts';
import { decodeQrCode } from '../../services/documents/test/support/qr-code.ts';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

const TEST_OUTPUT = join(import.meta.dirname, '../../test-output');
// Low enough that the last test can exhaust it from one address; API keys have budgets of their own.
const PUBLIC_RATE_LIMIT_MAX = 150;

let system: TestSystem;

beforeAll(async () => {
  // Its own NATS: documents' durable consumer has a fixed name, which another system must not share.
  system = await startSystem({ services: ['catalog', 'billing', 'documents'], env: { PUBLIC_RATE_LIMIT_MAX: String(PUBLIC_RATE_LIMIT_MAX) }, ownNats: true });
});

afterAll(async () => {
  await system?.stop();
});

/** What a reader extracts from the PDF (poppler's pdftotext), columns collapsed to single spaces. */
const pdfText = (pdf: Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = execFile('pdftotext', ['-layout', '-enc', 'UTF-8', '-', '-'], (error, stdout, stderr) =>
      error ? reject(new Error(`pdftotext (poppler-utils) failed: ${stderr || error.message}`)) : resolve(stdout.replace(/[ \t\u00a0]+/g, ' ')),
    );
    child.stdin!.end(pdf);
  });

const BUSINESS = {
  business_name: 'Acme Design Studio',
  address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
  tax_id: 'DE123456789',
  email: 'billing@acme.example',
  payment_instructions: 'IBAN DE89 3704 0044 0532 0130 00\nBIC COBADEFFXXX',
  brand_color: '#0B5FFF',
  // British English: the day-month dates of the expected rows (services/documents/test/support/currency-cases.ts).
  locale: 'en-GB',
};
const CUSTOMER = {
  name: 'Müller & Söhne GmbH',
  email: 'ap@mueller.example',
  tax_id: 'DE987654321',
  address: { line1: 'Domplatz 5', line2: '3. OG', city: 'Düsseldorf', postal_code: '40213', country: 'DE' },
};

const USD_LINES = CURRENCY_CASES[0]!.lines;

interface Workspace {
  api: ApiClient;
  customerId: string;
}

const setUpWorkspace = async (slug: string): Promise<Workspace> => {
  const { key } = await system.mintKey(slug, 'all');
  const api = system.client(key);
  const account = await api.PATCH('/api/v1/account', { body: BUSINESS });
  expect(account.response.status, JSON.stringify(account.error)).toBe(200);
  const customer = await api.POST('/api/v1/customers', { body: CUSTOMER });
  expect(customer.response.status).toBe(201);
  return { api, customerId: customer.data!.data.id };
};

const createInvoice = async ({ api, customerId }: Workspace, currency: string, items: LineInput[]) => {
  const created = await api.POST('/api/v1/invoices', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: { customer: customerId, currency, issue_date: '2026-11-20', due_date: '2030-01-31', items, notes: 'Thank you for your order.', footer: 'Payable within 30 days without deduction.' },
  });
  expect(created.response.status, JSON.stringify(created.error)).toBe(201);
  return created.data!.data;
};

const finalizedInvoice = async (workspace: Workspace, currency = 'USD', items: LineInput[] = USD_LINES) => {
  const draft = await createInvoice(workspace, currency, items);
  const finalized = await workspace.api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } } });
  expect(finalized.response.status, JSON.stringify(finalized.error)).toBe(200);
  return finalized.data!.data;
};

const downloadPdf = async (api: ApiClient, id: string) => {
  const result = await api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id } }, parseAs: 'arrayBuffer' });
  expect(result.response.status).toBe(200);
  return { bytes: Buffer.from(result.data as ArrayBuffer), response: result.response };
};

const publicPage = async (token: string) => {
  const response = await fetch(`${system.gatewayUrl}/i/${token}`);
  return { response, html: await response.text() };
};

describe('invoice PDFs through the gateway', () => {
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = await setUpWorkspace('documents-co');
  });

  it.each(CURRENCY_CASES)('prints everything a $currency invoice must show', async ({ currency, lines, expected }) => {
    const invoice = await finalizedInvoice(workspace, currency, lines);
    const { bytes, response } = await downloadPdf(workspace.api, invoice.id);

    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toContain(`Invoice-${invoice.number!.replaceAll('/', '-')}.pdf`);
    expect(response.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    const text = await pdfText(bytes);
    for (const item of [...PARTY_ROWS, `Invoice number ${invoice.number}`, 'Issue date 20 Nov 2026', 'Due date 31 Jan 2030', ...expected]) {
      expect(text).toContain(item);
    }
  });

  it('prints and stores the PDF when billing announces the finalization, before anyone asks for it', async () => {
    const invoice = await finalizedInvoice(workspace);
    const client = new pg.Client({ connectionString: system.databaseUrl });
    await client.connect();
    let stored: { sha256: string } | undefined;
    try {
      for (let attempt = 0; attempt < 200 && !stored; attempt++) {
        const { rows } = await client.query<{ sha256: string }>('select sha256 from documents.invoice_pdfs where invoice_id = $1', [parsePublicId('invoice', invoice.id)]);
        stored = rows[0];
        if (!stored) await new Promise((resolve) => setTimeout(resolve, 50));
      }
    } finally {
      await client.end();
    }
    expect(stored, 'documents stored no PDF after billing.invoice.finalized').toBeDefined();
    const { response } = await downloadPdf(workspace.api, invoice.id);
    expect(response.headers.get('etag')).toBe(`"${stored!.sha256}"`);
  });

  it('refuses a draft with 400 and another workspace’s invoice with 404', async () => {
    const draft = await createInvoice(workspace, 'USD', USD_LINES);
    const theirs = await finalizedInvoice(await setUpWorkspace('documents-other'));
    expectProblem(await workspace.api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id: draft.id } } }), 400, 'invalid_request');
    expectProblem(await workspace.api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id: theirs.id } } }), 404, 'not_found');
    const anonymous = await system.client().GET('/api/v1/invoices/{id}/pdf', { params: { path: { id: theirs.id } } });
    expectProblem(anonymous, 401, 'unauthenticated');
  });

  it('keeps the PDF and the public page as finalized when the customer and the business profile change', async () => {
    const invoice = await finalizedInvoice(workspace);
    const before = await downloadPdf(workspace.api, invoice.id);
    const pageBefore = await publicPage(invoice.public_url_token!);
    expect(pageBefore.response.status).toBe(200);

    await workspace.api.PATCH('/api/v1/customers/{id}', { params: { path: { id: workspace.customerId } }, body: { name: 'Renamed Holding AG', address: { city: 'Berlin' } } });
    await workspace.api.PATCH('/api/v1/account', { body: { business_name: 'Acme Rebranded Ltd', tax_id: 'GB000000000', payment_instructions: 'Pay in cash' } });
    const after = await downloadPdf(workspace.api, invoice.id);
    const pageAfter = await publicPage(invoice.public_url_token!);

    expect(after.bytes.equals(before.bytes)).toBe(true);
    expect(await pdfText(after.bytes)).toBe(await pdfText(before.bytes));
    const invoiceSection = (html: string) => html.slice(html.indexOf('<article'), html.indexOf('</article>'));
    expect(invoiceSection(pageAfter.html)).toBe(invoiceSection(pageBefore.html));
    expect(pageAfter.html).toContain('Müller &amp; Söhne GmbH');
    expect(pageAfter.html).not.toContain('Renamed Holding AG');
    expect(pageAfter.html).not.toContain('Acme Rebranded');
  });
});

describe('the public invoice page through the gateway', () => {
  let workspace: Workspace;

  beforeAll(async () => {
    workspace = await setUpWorkspace('public-page-co');
  });

  it('opens without credentials, shows the current status, and downloads the stored PDF', async () => {
    const invoice = await finalizedInvoice(workspace);
    expect(invoice.public_url).toBe(`${new URL(system.gatewayUrl).protocol}//localhost:${new URL(system.gatewayUrl).port}/i/${invoice.public_url_token}`);
    const open = await publicPage(invoice.public_url_token!);
    expect(open.response.status).toBe(200);
    expect(open.response.headers.get('referrer-policy')).toBe('no-referrer');
    expect(open.response.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(open.html).toMatch(/class="status status-open"/);

    const pdf = await fetch(`${system.gatewayUrl}/i/${invoice.public_url_token}/pdf`);
    const { bytes } = await downloadPdf(workspace.api, invoice.id);
    expect(pdf.status).toBe(200);
    expect(Buffer.from(await pdf.arrayBuffer()).equals(bytes)).toBe(true);
    expect(open.html).toContain(pdf.headers.get('etag')!.replaceAll('"', ''));

    await workspace.api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: invoice.id }, header: { 'Idempotency-Key': randomUUID() } }, body: {} });
    expect((await publicPage(invoice.public_url_token!)).html).toMatch(/class="status status-paid"/);
  });

  it('answers 404 for an unknown token and for a link that was rotated away; the new link shows the same invoice', async () => {
    const invoice = await finalizedInvoice(workspace);
    expect((await publicPage('A'.repeat(32))).response.status).toBe(404);
    const rotated = await workspace.api.POST('/api/v1/invoices/{id}/public_link/rotate', { params: { path: { id: invoice.id } } });
    expect(rotated.response.status, JSON.stringify(rotated.error)).toBe(200);
    const fresh = rotated.data!.data;
    expect(fresh.public_url_token).not.toBe(invoice.public_url_token);
    expect(fresh.public_url).toContain(`/i/${fresh.public_url_token}`);

    const old = await publicPage(invoice.public_url_token!);
    expect(old.response.status).toBe(404);
    expect(old.response.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await fetch(`${system.gatewayUrl}/i/${invoice.public_url_token}/pdf`)).status).toBe(404);
    const now = await publicPage(fresh.public_url_token!);
    expect(now.response.status).toBe(200);
    expect(now.html).toContain(invoice.number!);

    const timeline = await workspace.api.GET('/api/v1/invoices/{id}/timeline', { params: { path: { id: invoice.id } } });
    expect(timeline.data!.data.map((entry) => entry.type)).toContain('updated');
    const draft = await createInvoice(workspace, 'USD', USD_LINES);
    expectProblem(await workspace.api.POST('/api/v1/invoices/{id}/public_link/rotate', { params: { path: { id: draft.id } } }), 409, 'invalid_state');
  });

  it('works in a real browser: number, total and status on screen, and the download button delivers the PDF', async () => {
    const invoice = await finalizedInvoice(workspace);
    const found = await resolveChromium(process.env.CHROMIUM_PATH);
    if (!found.found) throw new Error(`The browser test needs Chromium: ${found.reason}`);
    const browser: Browser = await chromium.launch({ executablePath: found.executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const context = await browser.newContext({ acceptDownloads: true, viewport: { width: 1280, height: 900 } });
      const page = await context.newPage();
      const response = await page.goto(invoice.public_url!.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:'));
      expect(response?.status()).toBe(200);

      await expect(page.title()).resolves.toContain(invoice.number!);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`Invoice ${invoice.number}`);
      expect(await page.getByTestId('amount').textContent()).toBe('US$3,874.00');
      expect((await page.locator('.status').textContent())?.trim()).toBe('Status: Open');
      expect(await page.getByRole('main').count()).toBe(1);
      mkdirSync(TEST_OUTPUT, { recursive: true });
      await page.screenshot({ path: join(TEST_OUTPUT, 'public-invoice-page.png'), fullPage: true });

      const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download PDF' }).click()]);
      expect(download.suggestedFilename()).toBe(`Invoice-${invoice.number!.replaceAll('/', '-')}.pdf`);
      const path = join(TEST_OUTPUT, download.suggestedFilename());
      await download.saveAs(path);
      const { bytes } = await downloadPdf(workspace.api, invoice.id);
      expect(readFileSync(path).equals(bytes)).toBe(true);

      await page.setViewportSize({ width: 375, height: 800 });
      await page.screenshot({ path: join(TEST_OUTPUT, 'public-invoice-page-mobile.png'), fullPage: true });
    } finally {
      await browser.close();
    }
  });

  it('speaks the invoice\'s language in a real browser: German for the account, French for a customer who prefers it, with a payment QR code for what is still due', async () => {
    const { key } = await system.mintKey('public-page-languages', 'all');
    const api = system.client(key);
    const account = await api.PATCH('/api/v1/account', {
      body: { ...BUSINESS, locale: 'de-DE', payment_account: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Acme Design Studio' } },
    });
    expect(account.response.status, JSON.stringify(account.error)).toBe(200);
    const german = await api.POST('/api/v1/customers', { body: CUSTOMER });
    const french = await api.POST('/api/v1/customers', { body: { ...CUSTOMER, name: 'Dupont SARL', preferred_locale: 'fr' } });
    const forGerman = await finalizedInvoice({ api, customerId: german.data!.data.id }, 'EUR', USD_LINES);
    const forFrench = await finalizedInvoice({ api, customerId: french.data!.data.id }, 'EUR', USD_LINES);
    expect([forGerman.locale, forFrench.locale]).toEqual(['de-DE', 'fr']);

    const found = await resolveChromium(process.env.CHROMIUM_PATH);
    if (!found.found) throw new Error(`The browser test needs Chromium: ${found.reason}`);
    const browser: Browser = await chromium.launch({ executablePath: found.executablePath, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    try {
      const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
      for (const [invoice, lang, heading, status, download, amount] of [
        [forGerman, 'de-DE', 'Rechnung', 'Status: Offen', 'PDF herunterladen', /^\d{1,3}(\.\d{3})*,\d{2}\u00a0€$/],
        [forFrench, 'fr', 'Facture', 'Statut\u00a0: À payer', 'Télécharger le PDF', /^\d{1,3}(\u202f\d{3})*,\d{2}\u00a0€$/],
      ] as const) {
        expect((await page.goto(invoice.public_url!.replace(/^http:\/\/localhost:/, 'http://127.0.0.1:')))?.status()).toBe(200);
        expect(await page.locator('html').getAttribute('lang')).toBe(lang);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe(`${heading} ${invoice.number}`);
        expect((await page.locator('.status').textContent())?.trim()).toBe(status);
        expect(await page.getByTestId('amount').textContent()).toMatch(amount);
        expect(await page.getByRole('link', { name: download }).count()).toBe(1);
        mkdirSync(TEST_OUTPUT, { recursive: true });
        await page.screenshot({ path: join(TEST_OUTPUT, `public-invoice-page-${lang}.png`), fullPage: true });

        const qr = page.locator('.payment-qr svg');
        const scanned = decodeQrCode(await qr.screenshot());
        expect(scanned).toBe(['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Acme Design Studio', 'DE89370400440532013000', 'EUR3874.00', '', invoice.remittance_reference].join('\n'));
      }
    } finally {
      await browser.close();
    }
  });

  it('limits how fast one address can try tokens', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < PUBLIC_RATE_LIMIT_MAX + 5 && !statuses.includes(429); i++) {
      statuses.push((await fetch(`${system.gatewayUrl}/i/${randomUUID().replaceAll('-', '')}`)).status);
    }
    expect(statuses.at(-1)).toBe(429);
    expect(new Set(statuses)).toEqual(new Set([404, 429]));
  });
});
