import type { InvoiceViewedData } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, INTERNAL_TOKEN, newWorkspace, startDocuments, waitFor, type DocumentsHarness } from '../../../test/harness.ts';
import { makeInvoice, makeRichInvoice } from '../../../test/support/invoices.ts';
import { pdfPagesAsPng } from '../../../test/support/pdf-text.ts';
import { decodeQrCodeOnPages } from '../../../test/support/qr-code.ts';

let sut: DocumentsHarness;

beforeAll(async () => {
  sut = await startDocuments('documents_public');
});

afterAll(async () => {
  await sut?.close();
});

const visibleText = (html: string) =>
  html
    .replace(/<style[\s\S]*?<\/style>/g, '')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&nbsp;|\u00a0/g, ' ')
    .replace(/\s+/g, ' ');

describe('GET /i/:token', () => {
  it('shows the invoice with its status, the download and the PDF digest, without credentials', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());
    const page = await sut.get(`/i/${invoice.public_url_token}`);

    expect(page.statusCode, page.body).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const text = visibleText(page.body);
    expect(text).toContain('Invoice INV/2026/0042');
    expect(text).toContain('Open');
    expect(text).toContain('Due 20 Dec 2026');
    expect(text).toContain('Amount due €1,445.15');
    expect(text).toContain('Total (EUR) €1,445.15');
    expect(text).toContain(`Payment reference ${invoice.remittance_reference}`);
    expect(text).toContain('Müller &amp; Söhne GmbH');
    expect(page.body).toContain(`href="/i/${invoice.public_url_token}/pdf"`);

    const pdf = await sut.get(`/i/${invoice.public_url_token}/pdf`);
    expect(pdf.statusCode).toBe(200);
    expect(pdf.headers['content-type']).toBe('application/pdf');
    expect(pdf.headers['content-disposition']).toMatch(/^attachment; filename="Invoice-INV-2026-0042.pdf"/);
    expect(page.body).toContain(pdf.headers.etag!.replaceAll('"', ''));
  });

  it('shows the EN 16931 terms a reader needs, and asks for what is still to pay after the prepayment and payments since', async () => {
    const rich = makeRichInvoice({ locale: 'de-DE' });
    // €875.58 was due at issue; €75.58 has been paid since.
    const invoice = sut.billing.put(newWorkspace(), { ...rich, amount_paid: 7_558, amount_remaining: rich.amount_due - 7_558 });
    const text = visibleText((await sut.get(`/i/${invoice.public_url_token}`)).body);
    for (const phrase of [
      'Zu zahlender Betrag 800,00 €',
      'Bitte überweisen Sie 800,00 € bis zum 20.12.2026.',
      'Consulting Art.-Nr. CONS-01 On site in Köln, 3 and 4 November',
      '7,5 Stunden',
      '0,00125 €',
      '8,50 € je 100',
      'Nachlass: Framework agreement (5 % von 900,00 €) -45,00 €',
      'Zuschlag: Freight 15,00 €',
      'Gesamtbetrag (EUR) 1.375,58 €',
      'Vorauszahlung -500,00 €',
      'Zahlbetrag (EUR) 875,58 €',
      // Handlebars escapes '=' as an entity.
      'Umsatzsteuer in HUF: 73.437,63 HUF, Kurs 1 EUR &#x3D; 391,25 HUF',
      'Steuerbefreit: Steuerbefreit nach Artikel 132 (1) (i) der Richtlinie 2006/112/EG (VATEX-EU-132-1I)',
      'Handelsname Acme Studio',
      'Registernummer HRB 12345',
      'Steuervertreter Fiscal Representation SARL 12 rue de la Paix 75002 Paris Frankreich USt-IdNr. FR61123456789',
      'Kunden-ID 4000001987658',
      'Ansprechpartner Erika Mustermann',
      'Bezieht sich auf Rechnung INV/2026/0017 vom 15.10.2026.',
      'Zahlungsempfänger Factoring Bank AG',
      'IBAN AT61 1904 3002 3457 3201',
      'Anlagen timesheet-november.csv (Timesheet November) delivery-note.pdf',
      'Registered at Amtsgericht Köln, HRB 12345.',
    ]) {
      expect(text).toContain(phrase);
    }
  });

  it('prints a payment QR code for what is still to pay, which a banking app reads', async () => {
    const rich = makeRichInvoice({ locale: 'de-DE' });
    // €875.58 was due at issue (the PDF's code); €75.58 has been paid since.
    const invoice = sut.billing.put(newWorkspace(), { ...rich, amount_paid: 7_558, amount_remaining: rich.amount_due - 7_558 });
    const page = (await sut.get(`/i/${invoice.public_url_token}`)).body;
    const figure = /<figure class="payment-qr">[\s\S]*?<\/figure>/.exec(page)?.[0];
    expect(figure).toBeDefined();
    // The page's own code, printed as it is (Chromium) and scanned from the image.
    const pdf = await sut.renderer!.render({ title: 'QR', lang: 'de-DE', style: '', body: figure!, paper: 'A4' });
    expect(decodeQrCodeOnPages(await pdfPagesAsPng(pdf))).toBe(
      ['BCD', '002', '1', 'SCT', 'COBADEFFXXX', 'Factoring Bank AG', 'DE89370400440532013000', 'EUR800.00', '', invoice.remittance_reference].join('\n'),
    );
  });

  it('is locked down: no scripts, no framing, no referrer, no indexing, no caching', async () => {
    const invoice = sut.billing.put(newWorkspace(), makeInvoice());
    const page = await sut.get(`/i/${invoice.public_url_token}`);
    const csp = page.headers['content-security-policy'] as string;
    const nonce = /style-src 'nonce-([^']+)'/.exec(csp)?.[1];

    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(page.body).toContain(`<style nonce="${nonce}">`);
    expect(page.body).not.toMatch(/<script|style="/);
    expect(page.headers).toMatchObject({
      'referrer-policy': 'no-referrer',
      'x-robots-tag': 'noindex, nofollow, noarchive',
      'cache-control': 'no-store',
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
    });
    expect(page.body).toContain('<html lang="en-GB">');
    expect(page.body).toContain('<meta name="robots" content="noindex, nofollow, noarchive">');
    expect(page.body).toMatch(/<main[ >]/);
    const again = await sut.get(`/i/${invoice.public_url_token}`);
    expect(again.headers['content-security-policy']).not.toBe(csp);
  });

  it('writes what a customer typed as text, never as markup', async () => {
    const base = makeInvoice();
    const invoice = sut.billing.put(newWorkspace(), {
      ...base,
      notes: '<img src=x onerror=alert(1)>',
      customer_snapshot: { ...base.customer_snapshot!, name: '<script>alert("x")</script>' },
    });
    const page = await sut.get(`/i/${invoice.public_url_token}`);
    expect(page.body).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(page.body).toContain('&lt;img src&#x3D;x onerror&#x3D;alert(1)&gt;');
    expect(page.body).not.toContain('<script>alert');
    expect(page.body).not.toContain('<img src=x');
  });

  it.each([
    ['paid', { status: 'paid', amount_due: 0, paid_at: '2026-12-03T10:00:00.000Z' }, ['Paid', 'Paid on 3 Dec 2026', 'Amount paid']],
    ['void', { status: 'void', amount_due: 0, voided_at: '2026-12-04T10:00:00.000Z', void_reason: 'Duplicate' }, ['Void', 'Voided on 4 Dec 2026: nothing is due.', 'Amount due €0.00']],
    ['overdue', { status: 'overdue' }, ['Overdue', 'Was due 20 Dec 2026', 'Amount due €1,445.15']],
  ] as const)('shows a %s invoice as such', async (_status, change, expected) => {
    const base = makeInvoice();
    const invoice = sut.billing.put(newWorkspace(), { ...base, ...change, amount_paid: change.status === 'paid' ? base.total : 0 });
    const text = visibleText((await sut.get(`/i/${invoice.public_url_token}`)).body);
    for (const phrase of expected) expect(text).toContain(phrase);
  });

  it('announces each view as documents.invoice.viewed, with the invoice as the page showed it; a HEAD is no view', async () => {
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());
    await sut.get(`/i/${invoice.public_url_token}`);
    await sut.get(`/i/${invoice.public_url_token}`);
    await sut.get(`/i/${invoice.public_url_token}/pdf`);
    expect((await sut.app.inject({ method: 'HEAD', url: `/i/${invoice.public_url_token}`, headers: { 'x-internal-token': INTERNAL_TOKEN } })).statusCode).toBe(200);
    const [outbox] = await sut.orm.em
      .fork()
      .execute<{ count: string }[]>(`select count(*) from documents.outbox where subject = 'documents.invoice.viewed' and envelope->>'workspace_id' = ?`, [workspaceId]);
    expect(Number(outbox!.count)).toBe(2);
    const views = () => sut.published.filter((event) => event.type === 'documents.invoice.viewed' && event.workspace_id === workspaceId);
    await waitFor(() => views().length >= 2);
    expect(views()[0]).toMatchObject({ actor_key_id: null, idempotency_key: null, correlation_id: expect.any(String) });
    expect((views()[0]!.data as InvoiceViewedData).object).toMatchObject({ id: invoice.id, number: 'INV/2026/0042', status: 'open' });
  });

  it('answers every link that leads nowhere with the same 404, and asks billing only about well-formed ones', async () => {
    const draftBase = makeInvoice();
    const draft = sut.billing.put(newWorkspace(), { ...draftBase, status: 'draft', number: null, business_snapshot: null, customer_snapshot: null });
    const calls = sut.billing.calls.length;
    const unknownish = [`/i/${'A'.repeat(32)}`, `/i/${draft.public_url_token}`, `/i/${'A'.repeat(32)}/pdf`];
    const malformed = ['/i/short', '/i/..%2F..%2Fetc%2Fpasswd%2Fxx', `/i/${'x'.repeat(24)}.json`];
    const replies = await Promise.all([...unknownish, ...malformed].map((url) => sut.get(url)));
    const details = replies.map((reply) => expectProblem(reply, 404, 'not_found').detail);
    expect(new Set(details).size).toBe(1);
    for (const reply of replies) expect(reply.headers['referrer-policy']).toBe('no-referrer');
    expect(sut.billing.calls.length - calls).toBe(unknownish.length);
  });
});
