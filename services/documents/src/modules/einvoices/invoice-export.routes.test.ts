import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, newWorkspace, startDocuments, type DocumentsHarness } from '../../../test/harness.ts';
import { EINVOICE_SHAPES, EXPORT_VARIANTS } from '../../../test/support/einvoice-shapes.ts';
import { validateEinvoices, type DocumentToValidate } from '../../../test/support/einvoice-validator.ts';
import { makeInvoice, makeInvoiceOfShape } from '../../../test/support/invoices.ts';
import { pdfText } from '../../../test/support/pdf-text.ts';
import { renderExport } from './invoice-export.service.ts';

let sut: DocumentsHarness;

beforeAll(async () => {
  sut = await startDocuments('documents_einvoices');
});

afterAll(async () => {
  await sut?.close();
});

const run = (command: string, args: string[]): Promise<string> =>
  new Promise((resolve, reject) => execFile(command, args, (error, stdout, stderr) => (error ? reject(new Error(stderr || error.message)) : resolve(stdout))));

/** `pdfdetach -list` and the XMP (`pdfinfo -meta`) of a PDF, as poppler reads them. */
const attachmentsAndXmp = async (pdf: Buffer) => {
  const file = join(mkdtempSync(join(tmpdir(), 'facturx-')), 'invoice.pdf');
  writeFileSync(file, pdf);
  return { attachments: await run('pdfdetach', ['-list', file]), xmp: await run('pdfinfo', ['-meta', file]) };
};

describe('e-invoice exports of a finalized invoice', () => {
  it('writes every shape in every syntax and profile, and as Factur-X, each passing the official validator with 0 fatal', async () => {
    const documents: DocumentToValidate[] = [];
    for (const shape of EINVOICE_SHAPES) {
      const workspaceId = newWorkspace();
      const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(shape));
      for (const { syntax, profile } of EXPORT_VARIANTS) {
        const reply = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=${syntax}&profile=${profile}`);
        expect(reply.statusCode, `${shape.name} ${syntax} ${profile}: ${reply.body}`).toBe(200);
        expect(reply.headers['content-type']).toMatch(/^application\/xml/);
        // Remittance information (BT-83): the invoice's ISO 11649 creditor reference (issue #21).
        if (invoice.business_snapshot?.payment_account) {
          expect(reply.body).toContain(syntax.includes('cii') ? `<ram:PaymentReference>${invoice.remittance_reference}</ram:PaymentReference>` : `<cbc:PaymentID>${invoice.remittance_reference}</cbc:PaymentID>`);
        }
        documents.push({ name: `${shape.name} / ${syntax} ${profile}`, bytes: reply.rawPayload, xrechnung: profile === 'xrechnung' });
      }
      const facturx = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf?format=facturx`);
      expect(facturx.statusCode, `${shape.name} Factur-X: ${facturx.body}`).toBe(200);
      documents.push({ name: `${shape.name} / Factur-X`, bytes: facturx.rawPayload, xrechnung: false });
    }
    const results = await validateEinvoices(documents);
    for (const result of results) expect(result.fatal, `${result.name}\n${result.report}`).toBe(0);
    expect(results).toHaveLength(EINVOICE_SHAPES.length * 5);
  }, 300_000);

  it('is judged by a validator that fails a broken copy', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[1]!));
    const ubl = (await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice`)).body;
    const broken = ubl.replace(/<cbc:PayableAmount currencyID="EUR">[^<]+</, '<cbc:PayableAmount currencyID="EUR">1.00<').replace(/<cbc:IssueDate>[^<]+</, '<cbc:IssueDate>not a date<');
    expect(broken).not.toBe(ubl);
    const [result] = await validateEinvoices([{ name: 'broken copy', bytes: Buffer.from(broken), xrechnung: false }]);
    expect(result!.fatal).toBeGreaterThan(0);
    expect(result!.report).toMatch(/BR-CO-16|XSD/);
  }, 60_000);

  it('gives the same bytes on every render, stores them with their SHA-256 and serves them with it as ETag', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[1]!));
    const first = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=cii&profile=xrechnung`);
    const again = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=cii&profile=xrechnung`);
    const rendered = await renderExport(invoice, 'cii-xrechnung', async () => Buffer.alloc(0));
    expect(again.rawPayload.equals(first.rawPayload)).toBe(true);
    expect(rendered.equals(first.rawPayload)).toBe(true);
    expect(first.headers['content-disposition']).toContain('filename="Invoice-INV-2026-0042.xrechnung.cii.xml"');
    const revalidated = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=cii&profile=xrechnung`, { 'if-none-match': first.headers.etag as string });
    expect(revalidated.statusCode).toBe(304);
    const [row] = await sut.orm.em.fork().execute<{ sha256: string }[]>(`select sha256 from documents.invoice_exports where workspace_id = ? and kind = 'cii-xrechnung'`, [workspaceId]);
    expect(first.headers.etag).toBe(`"${row!.sha256}"`);

    const facturx = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf?format=facturx`);
    const pdf = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf?format=standard`);
    const facturxAgain = await renderExport(invoice, 'facturx', async () => pdf.rawPayload);
    expect(facturxAgain.equals(facturx.rawPayload)).toBe(true);
  });

  it('never changes once stored, whatever billing says about the invoice, its seller or its buyer later', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[0]!));
    const before = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=ubl&profile=en16931`);
    sut.billing.put(workspaceId, { ...invoice, customer_snapshot: { ...invoice.customer_snapshot!, name: 'Renamed AG' }, status: 'paid', amount_due: 0 });
    const after = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=ubl&profile=en16931`);
    expect(after.rawPayload.equals(before.rawPayload)).toBe(true);
    expect(after.body).not.toContain('Renamed AG');
  });

  it('answers 400 with one error per missing field, naming its rule, instead of an invalid document', async () => {
    const workspaceId = newWorkspace();
    const base = makeInvoiceOfShape(EINVOICE_SHAPES[0]!);
    const invoice = sut.billing.put(workspaceId, {
      ...base,
      buyer_reference: null,
      business_snapshot: { ...base.business_snapshot!, phone: null, payment_account: null },
      payment_means: [],
    });
    const problem = expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?profile=xrechnung`), 400, 'invalid_request');
    expect(problem.errors).toEqual(
      expect.arrayContaining([
        { path: 'buyer_reference', message: expect.stringContaining('BR-DE-15') },
        { path: 'business_snapshot.phone', message: expect.stringContaining('BR-DE-6') },
        { path: 'payment_means', message: expect.stringContaining('BR-DE-1') },
      ]),
    );
    expect(problem.errors).toHaveLength(3);
    // The core standard needs none of them.
    expect((await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?profile=en16931`)).statusCode).toBe(200);
    const unsupported = expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=edifact`), 400, 'invalid_request');
    expect(JSON.stringify(unsupported)).toContain('syntax');
  });

  it('refuses a draft with 400 and answers 404 for another workspace’s invoice', async () => {
    const workspaceId = newWorkspace();
    const draft = sut.billing.put(workspaceId, makeInvoice({ status: 'draft', number: null, business_snapshot: null, customer_snapshot: null, finalized_at: null }));
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${draft.id}/einvoice`), 400, 'invalid_request');
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${draft.id}/pdf?format=facturx`), 400, 'invalid_request');
    const theirs = sut.billing.put(newWorkspace(), makeInvoice());
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${theirs.id}/einvoice`), 404, 'not_found');
    expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${theirs.id}/pdf?format=facturx`), 404, 'not_found');
  });

  it('makes a Factur-X PDF/A-3 with factur-x.xml attached and the Factur-X XMP, whose text still shows every figure', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[1]!));
    const plain = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    const facturx = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf?format=facturx`);
    expect(facturx.headers['content-type']).toBe('application/pdf');
    const { attachments, xmp } = await attachmentsAndXmp(facturx.rawPayload);
    expect(attachments).toMatch(/^1: factur-x\.xml$/m);
    expect(xmp).toMatch(/<pdfaid:part>3<\/pdfaid:part>/);
    expect(xmp).toMatch(/<pdfaid:conformance>B<\/pdfaid:conformance>/);
    expect(xmp).toMatch(/<fx:DocumentFileName>factur-x\.xml<\/fx:DocumentFileName>/);
    expect(xmp).toMatch(/<fx:ConformanceLevel>EN 16931<\/fx:ConformanceLevel>/);
    const readable = (text: string) => text.replace(/[ \t\u00a0]+/g, ' ');
    expect(readable(await pdfText(facturx.rawPayload))).toBe(readable(await pdfText(plain.rawPayload)));
    for (const figure of ['INV/2026/0042', 'Design workshop 2 €450.00 -€112.50 (12.5%) 19% €787.50', 'Total (EUR)']) expect(readable(await pdfText(facturx.rawPayload))).toContain(figure);
  });

  it('gives the Factur-X PDF by default when the account asks for it, and the plain PDF to an invoice that cannot be one', async () => {
    const workspaceId = newWorkspace();
    sut.billing.setPdfFormat(workspaceId, 'facturx');
    const ready = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[0]!));
    const lacking = sut.billing.put(workspaceId, { ...makeInvoiceOfShape(EINVOICE_SHAPES[0]!), id: makeInvoice().id, due_date: null, footer: null });
    expect((await attachmentsAndXmp((await sut.getAs(workspaceId, `/api/v1/invoices/${ready.id}/pdf`)).rawPayload)).attachments).toContain('factur-x.xml');
    expect((await attachmentsAndXmp((await sut.getAs(workspaceId, `/api/v1/invoices/${ready.id}/pdf?format=standard`)).rawPayload)).attachments).toMatch(/^0 embedded files/m);
    expect((await attachmentsAndXmp((await sut.getAs(workspaceId, `/api/v1/invoices/${lacking.id}/pdf`)).rawPayload)).attachments).toMatch(/^0 embedded files/m);
    const refused = expectProblem(await sut.getAs(workspaceId, `/api/v1/invoices/${lacking.id}/pdf?format=facturx`), 400, 'invalid_request');
    expect(refused.errors).toEqual([{ path: 'due_date', message: expect.stringContaining('BR-CO-25') }]);
  });

  it('offers the XML and the Factur-X PDF on the public page, with the same bytes as the API', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoiceOfShape(EINVOICE_SHAPES[0]!));
    const page = await sut.get(`/i/${invoice.public_url_token}`);
    const base = `/i/${invoice.public_url_token}`;
    expect(page.body).toContain(`href="${base}/pdf?format&#x3D;facturx"`);
    expect(page.body).toContain(`href="${base}/einvoice?syntax&#x3D;ubl&amp;profile&#x3D;en16931"`);
    const publicXml = await sut.get(`${base}/einvoice?syntax=ubl&profile=xrechnung`);
    const apiXml = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=ubl&profile=xrechnung`);
    expect(publicXml.statusCode).toBe(200);
    expect(publicXml.rawPayload.equals(apiXml.rawPayload)).toBe(true);
    expect(publicXml.headers['referrer-policy']).toBe('no-referrer');
    const publicFacturx = await sut.get(`${base}/pdf?format=facturx`);
    expect(publicFacturx.rawPayload.equals((await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf?format=facturx`)).rawPayload)).toBe(true);
  });
});
