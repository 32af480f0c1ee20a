import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EINVOICE_SHAPES, EXPORT_VARIANTS, type EinvoiceShape } from '../../services/documents/test/support/einvoice-shapes.ts';
import { validateEinvoices, type DocumentToValidate } from '../../services/documents/test/support/einvoice-validator.ts';
import { expectProblem } from '../support/problems.ts';
import { startSystem, type ApiClient, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  // Its own NATS: documents' durable consumer has a fixed name, which another system must not share.
  system = await startSystem({ services: ['catalog', 'billing', 'documents'], ownNats: true });
});

afterAll(async () => {
  await system?.stop();
});

/** A seller with everything EN 16931 and XRechnung ask of it. */
const SELLER = {
  business_name: 'Acme Design Studio',
  address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'DE' },
  tax_id: 'DE123456789',
  email: 'billing@acme.example',
  phone: '+49 221 1234567',
  contact_name: 'Accounts receivable',
  payment_account: { iban: 'DE89 3704 0044 0532 0130 00', bic: 'COBADEFFXXX', name: 'Acme Design Studio' },
  payment_instructions: 'Please quote the invoice number.',
};

const run = (command: string, args: string[], input?: Buffer): Promise<string> =>
  new Promise((resolve, reject) => {
    const child = execFile(command, args, { maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => (error ? reject(new Error(`${command}: ${stderr || error.message}`)) : resolve(stdout)));
    if (input) child.stdin!.end(input);
  });

const fileOf = (bytes: Buffer): string => {
  const file = join(mkdtempSync(join(tmpdir(), 'einvoice-e2e-')), 'document.pdf');
  writeFileSync(file, bytes);
  return file;
};

const setUpWorkspace = async (slug: string, seller: Record<string, unknown> = SELLER): Promise<ApiClient> => {
  const { key } = await system.mintKey(slug, 'all');
  const api = system.client(key);
  const account = await api.PATCH('/api/v1/account', { body: seller });
  expect(account.response.status, JSON.stringify(account.error)).toBe(200);
  return api;
};

const createCustomer = async (api: ApiClient, shape: EinvoiceShape) => {
  const created = await api.POST('/api/v1/customers', { body: { ...shape.customer, buyer_reference: '04011000-12345-34' } });
  expect(created.response.status, JSON.stringify(created.error)).toBe(201);
  return created.data!.data.id;
};

const createDraft = async (api: ApiClient, customer: string, shape: EinvoiceShape) => {
  const created = await api.POST('/api/v1/invoices', {
    params: { header: { 'Idempotency-Key': randomUUID() } },
    body: {
      customer,
      currency: shape.currency,
      issue_date: '2026-11-20',
      due_date: '2030-01-31',
      purchase_order: 'PO-7781',
      items: shape.lines,
      notes: 'Thank you for your order.',
      footer: 'Payable within 30 days without deduction.',
    },
  });
  expect(created.response.status, JSON.stringify(created.error)).toBe(201);
  return created.data!.data;
};

const finalize = async (api: ApiClient, id: string) => {
  const finalized = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id }, header: { 'Idempotency-Key': randomUUID() } } });
  expect(finalized.response.status, JSON.stringify(finalized.error)).toBe(200);
  return finalized.data!.data;
};

const einvoice = async (api: ApiClient, id: string, syntax: 'ubl' | 'cii', profile: 'en16931' | 'xrechnung') => {
  const result = await api.GET('/api/v1/invoices/{id}/einvoice', { params: { path: { id }, query: { syntax, profile } }, parseAs: 'arrayBuffer' });
  return { status: result.response.status, bytes: Buffer.from((result.data as ArrayBuffer | undefined) ?? new ArrayBuffer(0)), response: result.response, error: result.error };
};

const pdf = async (api: ApiClient, id: string, format?: 'standard' | 'facturx') => {
  const result = await api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id }, query: format ? { format } : {} }, parseAs: 'arrayBuffer' });
  expect(result.response.status, JSON.stringify(result.error)).toBe(200);
  return Buffer.from(result.data as ArrayBuffer);
};

/** Every export of a finalized invoice: the four XML variants and the Factur-X PDF. */
const exportsOf = async (api: ApiClient, id: string, name: string): Promise<DocumentToValidate[]> => {
  const documents: DocumentToValidate[] = [];
  for (const { syntax, profile } of EXPORT_VARIANTS) {
    const xml = await einvoice(api, id, syntax, profile);
    expect(xml.status, `${name} ${syntax} ${profile}: ${JSON.stringify(xml.error)}`).toBe(200);
    expect(xml.response.headers.get('content-type')).toMatch(/^application\/xml/);
    documents.push({ name: `${name} / ${syntax} ${profile}`, bytes: xml.bytes, xrechnung: profile === 'xrechnung' });
  }
  documents.push({ name: `${name} / Factur-X`, bytes: await pdf(api, id, 'facturx'), xrechnung: false });
  return documents;
};

describe('EN 16931 e-invoices through the gateway', () => {
  it('exports invoices of every shape, a deleted customer’s included, in every syntax and profile and as Factur-X, each with 0 fatal from the official validator', async () => {
    const api = await setUpWorkspace('einvoice-shapes');
    const documents: DocumentToValidate[] = [];
    for (const shape of EINVOICE_SHAPES) {
      const invoice = await finalize(api, (await createDraft(api, await createCustomer(api, shape), shape)).id);
      expect(invoice.einvoice, shape.name).toMatchObject({ en16931: { ready: true }, xrechnung: { ready: true } });
      documents.push(...(await exportsOf(api, invoice.id, shape.name)));
    }
    // The customer is deleted after the draft names it: finalization freezes it as it was.
    const shape = EINVOICE_SHAPES[1]!;
    const customer = await createCustomer(api, shape);
    const draft = await createDraft(api, customer, shape);
    expect((await api.DELETE('/api/v1/customers/{id}', { params: { path: { id: customer } } })).response.status).toBe(200);
    const orphan = await finalize(api, draft.id);
    documents.push(...(await exportsOf(api, orphan.id, 'a deleted customer')));

    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
    expect(results).toHaveLength((EINVOICE_SHAPES.length + 1) * 5);
  }, 600_000);

  it('gives the same bytes on every download, unchanged by later edits of the account and the customer', async () => {
    const api = await setUpWorkspace('einvoice-frozen');
    const shape = EINVOICE_SHAPES[1]!;
    const customer = await createCustomer(api, shape);
    const invoice = await finalize(api, (await createDraft(api, customer, shape)).id);
    const before = await exportsOf(api, invoice.id, 'before');
    expect((await api.PATCH('/api/v1/account', { body: { business_name: 'Renamed Studio GmbH', phone: '+49 30 000000', pdf_format: 'standard' } })).response.status).toBe(200);
    expect((await api.PATCH('/api/v1/customers/{id}', { params: { path: { id: customer } }, body: { name: 'Renamed Customer AG', email: 'new@renamed.example' } })).response.status).toBe(200);
    const after = await exportsOf(api, invoice.id, 'after');
    after.forEach((document, index) => expect(document.bytes.equals(before[index]!.bytes), document.name).toBe(true));
    expect(after.map((document) => document.bytes.toString('latin1')).join('')).not.toContain('Renamed');
  }, 120_000);

  it('makes the Factur-X PDF a PDF/A-3 carrying factur-x.xml, whose text shows every figure of the invoice; the account can make it the default', async () => {
    const api = await setUpWorkspace('einvoice-facturx');
    const shape = EINVOICE_SHAPES[1]!;
    const invoice = await finalize(api, (await createDraft(api, await createCustomer(api, shape), shape)).id);
    const facturx = await pdf(api, invoice.id, 'facturx');
    const file = fileOf(facturx);
    expect(await run('pdfdetach', ['-list', file])).toMatch(/^1: factur-x\.xml$/m);
    const xmp = await run('pdfinfo', ['-meta', file]);
    expect(xmp).toContain('<pdfaid:part>3</pdfaid:part>');
    expect(xmp).toContain('<fx:DocumentFileName>factur-x.xml</fx:DocumentFileName>');
    expect(xmp).toContain('<fx:ConformanceLevel>EN 16931</fx:ConformanceLevel>');
    await run('pdfdetach', ['-save', '1', '-o', `${file}.xml`, file]);
    expect(readFileSync(`${file}.xml`, 'utf8')).toBe((await einvoice(api, invoice.id, 'cii', 'en16931')).bytes.toString('utf8'));
    const text = (await run('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'])).replace(/[ \t\u00a0]+/g, ' ');
    for (const figure of [
      invoice.number!,
      'Design workshop 2 €450.00 -€112.50 (12.5%) 19% €787.50',
      'Printed brochures 300 €1.25 – 7% €375.00',
      `Total (EUR) €${(invoice.total / 100).toLocaleString('en-US', { minimumFractionDigits: 2 })}`,
    ]) {
      expect(text).toContain(figure);
    }

    expect(await run('pdfdetach', ['-list', fileOf(await pdf(api, invoice.id))])).toMatch(/^0 embedded files/m);
    expect((await api.PATCH('/api/v1/account', { body: { pdf_format: 'facturx' } })).response.status).toBe(200);
    expect((await pdf(api, invoice.id)).equals(facturx)).toBe(true);
    expect(await run('pdfdetach', ['-list', fileOf(await pdf(api, invoice.id, 'standard'))])).toMatch(/^0 embedded files/m);
  }, 120_000);

  it('refuses a draft (400), what the profile lacks (400, one error per field), another workspace’s invoice (404) and a key without invoices:read (403)', async () => {
    const shape = EINVOICE_SHAPES[0]!;
    const { phone: _phone, contact_name: _contact, payment_account: _account, ...lacking } = SELLER;
    const api = await setUpWorkspace('einvoice-refusals', lacking);
    const customer = await createCustomer(api, shape);
    const draft = await createDraft(api, customer, shape);
    expectProblem(await api.GET('/api/v1/invoices/{id}/einvoice', { params: { path: { id: draft.id } } }), 400, 'invalid_request');
    const invoice = await finalize(api, (await createDraft(api, customer, shape)).id);
    expect((await einvoice(api, invoice.id, 'ubl', 'en16931')).status).toBe(200);
    const refusal = await api.GET('/api/v1/invoices/{id}/einvoice', { params: { path: { id: invoice.id }, query: { profile: 'xrechnung' } } });
    expectProblem(refusal, 400, 'invalid_request');
    const refused = refusal.error as { errors: { path: string; message: string }[] };
    expect(refused.errors.map((error) => error.path).sort()).toEqual(['business_snapshot.contact_name', 'business_snapshot.phone', 'payment_means']);
    for (const error of refused.errors) expect(error.message).toMatch(/^BR-DE-\d+/);

    const other = await setUpWorkspace('einvoice-other');
    expectProblem(await other.GET('/api/v1/invoices/{id}/einvoice', { params: { path: { id: invoice.id } } }), 404, 'not_found');
    expectProblem(await other.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id: invoice.id }, query: { format: 'facturx' } } }), 404, 'not_found');
    const { key } = await system.mintKey('einvoice-refusals', 'clients:read');
    expectProblem(await system.client(key).GET('/api/v1/invoices/{id}/einvoice', { params: { path: { id: invoice.id } } }), 403, 'forbidden');
  }, 120_000);

  it('offers the XML and the Factur-X PDF on the public page', async () => {
    const api = await setUpWorkspace('einvoice-public');
    const shape = EINVOICE_SHAPES[0]!;
    const invoice = await finalize(api, (await createDraft(api, await createCustomer(api, shape), shape)).id);
    const html = await (await fetch(`${system.gatewayUrl}/i/${invoice.public_url_token}`)).text();
    expect(html).toContain(`/i/${invoice.public_url_token}/pdf?format&#x3D;facturx`);
    const xml = await fetch(`${system.gatewayUrl}/i/${invoice.public_url_token}/einvoice?syntax=cii&profile=xrechnung`);
    expect(xml.status).toBe(200);
    expect(Buffer.from(await xml.arrayBuffer()).equals((await einvoice(api, invoice.id, 'cii', 'xrechnung')).bytes)).toBe(true);
  }, 60_000);
});
