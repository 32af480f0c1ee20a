import { freePort } from '@invoicing/testing';
import { SmtpTestServer, type ReceivedMail } from '@invoicing/testing/smtp-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogProcess } from './support/catalog-process.ts';
import { catalogSeeder, INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

// E-mail delivery end to end on real parts: billing's worker sends over SMTP (Nodemailer) to a
// real SMTP server that refuses on request, with the PDF fetched from the real documents service.
describe('e-mail delivery', () => {
  let harness: BillingHarness;
  let documents: CatalogProcess;
  let smtp: SmtpTestServer;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;

  const openInvoice = async (customerBody: Record<string, unknown> = {}, extra: Record<string, unknown> = {}) => {
    const customer = await seed.customer(customerBody);
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, due_date: '2026-12-22', items: [{ description: 'Audit', unit_amount: 100_000, tax_rate: 19 }], ...extra }, { 'x-idempotency-key': `c-${Math.random()}` });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const finalized = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`, undefined, { 'x-idempotency-key': `f-${created.body.data.id}` });
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    return { invoice: finalized.body.data, customer };
  };
  const send = (invoiceId: string, body?: unknown, key = `s-${Math.random()}`) => api.call('POST', `/api/v1/invoices/${invoiceId}/send`, body, { 'x-idempotency-key': key });
  const messageWhen = async (id: string, done: (message: any) => boolean, timeoutMs = 30_000, client = api) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const response = await client.call('GET', `/api/v1/messages/${id}`);
      expect(response.status).toBe(200);
      if (done(response.body.data)) return response.body.data;
      if (Date.now() > deadline) throw new Error(`message stayed ${JSON.stringify(response.body.data)}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const outboxTypes = async (invoiceOrMessage: string) =>
    (await harness.sql<{ type: string }>(`select envelope->>'type' as type from billing.outbox where envelope::text like ? order by created_at, id`, [`%${invoiceOrMessage}%`])).map((row) => row.type);

  beforeAll(async () => {
    smtp = new SmtpTestServer();
    await smtp.listen();
    const documentsPort = await freePort();
    harness = await startBillingHarness({
      env: {
        SMTP_URL: smtp.url,
        MAIL_FROM: 'Invoices <invoices@platform.example>',
        MAIL_RETRY_SCHEDULE: '0,1,1',
        MAIL_POLL_MS: '100',
        MAIL_TIMEOUT_MS: '5000',
        DOCUMENTS_URL: `http://127.0.0.1:${documentsPort}`,
        DOCUMENTS_TIMEOUT_MS: '60000',
        PUBLIC_URL_BASE: 'https://pay.example',
      },
    });
    const billingPort = await freePort();
    await harness.service.app.listen({ port: billingPort, host: '127.0.0.1' });
    documents = await CatalogProcess.launch(harness.database.url, INTERNAL_TOKEN, { service: 'documents', port: documentsPort, env: { BILLING_URL: `http://127.0.0.1:${billingPort}` } });
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH', email: 'invoices@seller.example', reply_to: 'accounts@seller.example', payment_instructions: 'IBAN DE00 1234', default_currency: 'EUR' });
  }, 120_000);
  afterAll(async () => {
    await harness?.close();
    await documents?.stop();
    await smtp?.close();
  });

  it('sends the invoice with its PDF, a stable Message-ID, the public link and Reply-To; invoice.sent fires', async () => {
    const { invoice } = await openInvoice();
    const queued = await send(invoice.id, { message: 'Thank you for your order.' });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.data).toMatchObject({ object: 'message', livemode: true, invoice: invoice.id, kind: 'invoice', to: ['billing@mueller.example'], cc: [], status: 'queued', attempts: 0, sent_at: null });
    expect(queued.body.data.subject).toBe(`Invoice ${invoice.number} from Seller GmbH`);
    const sent = await messageWhen(queued.body.data.id, (message) => message.status === 'sent', 90_000);
    expect(sent.attempts).toBe(1);
    expect(sent.attachments).toEqual([{ filename: `Invoice-${invoice.number.replaceAll('/', '-')}.pdf`, content_type: 'application/pdf', size: expect.any(Number) }]);
    const [mail] = await smtp.waitFor((each) => each.messageId === `<${queued.body.data.id}@platform.example>`);
    expect(mail!.envelopeTo).toEqual(['billing@mueller.example']);
    expect(mail!.parsed.replyTo?.value[0]?.address).toBe('accounts@seller.example');
    expect(mail!.parsed.from?.value[0]).toEqual({ name: 'Seller GmbH', address: 'invoices@platform.example' });
    expect(mail!.parsed.text).toContain(invoice.public_url);
    expect(mail!.parsed.text).toContain('€1,190.00');
    expect(mail!.parsed.text).toContain('Thank you for your order.');
    expect(mail!.parsed.html).toContain(`href="${invoice.public_url}"`);
    const pdf = mail!.parsed.attachments[0]!;
    expect(pdf.content.subarray(0, 5).toString()).toBe('%PDF-');
    expect(pdf.size).toBe(sent.attachments[0].size);
    expect(await outboxTypes(invoice.id)).toContain('billing.invoice.sent');
    const listed = await api.call('GET', `/api/v1/invoices/${invoice.id}/messages`);
    expect(listed.body.data.map((message: { id: string }) => message.id)).toEqual([sent.id]);
  }, 120_000);

  it('send_on_finalize: finalizing queues the e-mail in the finalize batch, to the customer, with the account’s attachments it qualifies for', async () => {
    await api.call('PATCH', '/api/v1/account', { send_on_finalize: true, email_attachments: ['pdf', 'xrechnung_cii'] });
    try {
      const { invoice } = await openInvoice({ email: 'auto@buyer.example' });
      const listed = await api.call('GET', `/api/v1/invoices/${invoice.id}/messages`);
      expect(listed.body.data).toHaveLength(1);
      // Not XRechnung-ready (no buyer reference, no seller contact): the PDF alone.
      expect(listed.body.data[0]).toMatchObject({ kind: 'invoice', to: ['auto@buyer.example'], attachments: [{ content_type: 'application/pdf' }] });
      await messageWhen(listed.body.data[0].id, (message) => message.status === 'sent', 90_000);
      // A finalize answered as it is (open already) queues nothing more.
      await api.call('POST', `/api/v1/invoices/${invoice.id}/finalize`, undefined, { 'x-idempotency-key': `again-${invoice.id}` });
      expect((await api.call('GET', `/api/v1/invoices/${invoice.id}/messages`)).body.data).toHaveLength(1);
    } finally {
      await api.call('PATCH', '/api/v1/account', { send_on_finalize: false, email_attachments: ['pdf'] });
    }
  }, 120_000);

  it('attaches each stored document chosen (PDF, Factur-X, UBL, CII, XRechnung UBL and CII), written in the invoice’s language; the total is capped', async () => {
    // A seller and a buyer with everything XRechnung needs, in a workspace of their own; the buyer reads German.
    const seller = workspaceClient(harness.service);
    const sellerSeed = catalogSeeder(harness, seller.workspaceId);
    const patched = await seller.call('PATCH', '/api/v1/account', {
      business_name: 'Nordlicht Software GmbH',
      email: 'rechnung@nordlicht.example',
      address: { line1: 'Hauptstraße 1', city: 'Berlin', postal_code: '10115', country: 'DE' },
      tax_id: 'DE123456789',
      phone: '+49 30 1234567',
      contact_name: 'Buchhaltung',
      payment_account: { iban: 'DE89370400440532013000' },
      default_currency: 'EUR',
    });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
    const buyer = await sellerSeed.customer({ name: 'Stadt Köln', email: 'rechnung@koeln.example', buyer_reference: '991-12345-67', preferred_locale: 'de', address: { line1: 'Platz 2', city: 'Köln', postal_code: '50679', country: 'DE' } });
    const issue = async (attach?: Buffer) => {
      const draft = await seller.call('POST', '/api/v1/invoices', { customer: buyer.id, due_date: '2026-12-22', items: [{ description: 'Wartung', unit_amount: 100_000, tax_rate: 19 }] }, { 'x-idempotency-key': `x-${Math.random()}` });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      if (attach) {
        const body = { filename: 'stunden.csv', content_type: 'text/csv', content_base64: attach.toString('base64') };
        const attached = await seller.call('POST', `/api/v1/invoices/${draft.body.data.id}/attachments`, body, { 'x-idempotency-key': `a-${Math.random()}` });
        expect(attached.status, JSON.stringify(attached.body)).toBe(201);
      }
      const finalized = await seller.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': `xf-${Math.random()}` });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      expect(finalized.body.data.einvoice).toEqual({ en16931: { ready: true, missing: [] }, xrechnung: { ready: true, missing: [] } });
      return finalized.body.data;
    };
    const sendAs = (invoiceId: string, attachments: string[]) => seller.call('POST', `/api/v1/invoices/${invoiceId}/send`, { attachments }, { 'x-idempotency-key': `xs-${Math.random()}` });

    const invoice = await issue();
    expect(invoice.locale).toBe('de');
    const all = ['xrechnung_cii', 'pdf', 'ubl', 'facturx', 'cii', 'xrechnung_ubl'];
    const queued = await sendAs(invoice.id, all);
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    expect(queued.body.data.subject).toBe(`Rechnung ${invoice.number} von Nordlicht Software GmbH`);
    const sent = await messageWhen(queued.body.data.id, (message) => message.status !== 'queued', 90_000, seller);
    expect(sent.status, JSON.stringify(sent)).toBe('sent');
    const base = `Invoice-${invoice.number.replaceAll('/', '-')}`;
    // In the documented order, whatever order they were asked in.
    expect(sent.attachments.map((each: { filename: string; content_type: string }) => [each.filename, each.content_type])).toEqual([
      [`${base}.pdf`, 'application/pdf'],
      [`${base}.facturx.pdf`, 'application/pdf'],
      [`${base}.ubl.xml`, 'application/xml'],
      [`${base}.cii.xml`, 'application/xml'],
      [`${base}.xrechnung.ubl.xml`, 'application/xml'],
      [`${base}.xrechnung.cii.xml`, 'application/xml'],
    ]);
    const [mail] = await smtp.waitFor((each) => each.messageId === `<${queued.body.data.id}@platform.example>`);
    const files = mail!.parsed.attachments;
    expect(files.map((each) => [each.filename, each.size])).toEqual(sent.attachments.map((each: { filename: string; size: number }) => [each.filename, each.size]));
    const text = (index: number) => files[index]!.content.toString('utf8');
    expect(text(0).startsWith('%PDF-')).toBe(true);
    expect(text(1).startsWith('%PDF-')).toBe(true);
    expect(text(1)).toContain('factur-x.xml');
    expect(text(2)).toMatch(/<(\w+:)?Invoice [^>]*urn:oasis:names:specification:ubl:schema:xsd:Invoice-2/);
    expect(text(2)).toContain('urn:cen.eu:en16931:2017');
    expect(text(2)).not.toContain('xrechnung');
    expect(text(3)).toContain('CrossIndustryInvoice');
    expect(text(3)).not.toContain('xrechnung');
    expect(text(4)).toMatch(/<(\w+:)?Invoice [^>]*urn:oasis:names:specification:ubl:schema:xsd:Invoice-2/);
    expect(text(4)).toContain('urn:xeinkauf.de:kosit:xrechnung');
    expect(text(5)).toContain('CrossIndustryInvoice');
    expect(text(5)).toContain('urn:xeinkauf.de:kosit:xrechnung');
    for (const xml of [2, 3, 4, 5]) expect(text(xml)).toContain(invoice.number);
    // The body in German, with German money and dates.
    expect(mail!.parsed.text).toContain('Guten Tag Stadt Köln,');
    expect(mail!.parsed.text?.replaceAll('\u00a0', ' ')).toContain('Offener Betrag: 1.190,00 € (fällig am 22.12.2026)');
    expect(mail!.parsed.text).toContain(`Anhang: ${files.map((each) => each.filename).join(', ')}`);
    expect(mail!.parsed.html).toContain('lang="de"');

    // Two exports that each embed a 4.5 MB supporting document: each below the 10 MB cap, together above it.
    const heavy = await issue(Buffer.from('tag,stunden\n'.padEnd(4_500_000, '2026-11-02,7.5\n')));
    const tooLarge = await sendAs(heavy.id, ['cii', 'ubl']);
    expect(tooLarge.status, JSON.stringify(tooLarge.body)).toBe(202);
    const failed = await messageWhen(tooLarge.body.data.id, (message) => message.status !== 'queued', 90_000, seller);
    expect(failed).toMatchObject({ status: 'failed', attempts: 0, error: 'attachments: together larger than 10000000 bytes, the limit of one message (cii takes them over)' });
    expect(smtp.received.filter((each) => each.messageId === `<${tooLarge.body.data.id}@platform.example>`)).toEqual([]);
    expect(await outboxTypes(failed.id)).toEqual(['billing.message.failed']);
    // Either one alone goes.
    const one = await sendAs(heavy.id, ['cii']);
    expect((await messageWhen(one.body.data.id, (message) => message.status !== 'queued', 90_000, seller)).status).toBe('sent');
  }, 240_000);

  it('shares the queue between replicas under leases: 60 messages due at one instant, claimed by three workers at once, each delivered once', async () => {
    await Promise.all([harness.start(), harness.start()]);
    const { invoice } = await openInvoice({ email: 'replicas@buyer.example' });
    const first = (await send(invoice.id, { attachments: [] })).body.data.id as string;
    await messageWhen(first, (message) => message.status === 'sent');
    // 60 more like it, queued in one statement and all due a moment later: every worker of the three
    // processes polls for them at once (sends through the API would each be claimed at once by the
    // worker of the process that answered).
    const copies = await harness.sql<{ id: string }>(
      `insert into billing.messages (id, workspace_id, invoice_id, kind, to_addresses, cc_addresses, subject, note, attachment_kinds, attachments, status, attempts, next_attempt_at, created_at)
       select gen_random_uuid(), workspace_id, invoice_id, kind, to_addresses, cc_addresses, subject, note, attachment_kinds, attachments, 'queued', 0, now() + interval '1 second', now()
       from billing.messages, generate_series(1, 60) where id = substr(?, 5)::uuid returning id::text`,
      [first],
    );
    const ids = copies.map((row) => `msg_${row.id.replaceAll('-', '')}`);
    expect(ids).toHaveLength(60);
    for (const id of ids) await messageWhen(id, (message) => message.status === 'sent');
    const expected = new Set(ids.map((id) => `<${id}@platform.example>`));
    // The test server answers 250 before it has parsed a message: wait for the last parse.
    const received = await smtp.waitFor((each) => each.messageId !== null && expected.has(each.messageId), 60);
    expect(new Set(received.map((each) => each.messageId)).size).toBe(60);
    expect(received).toHaveLength(60);
  }, 120_000);

  it('refuses what cannot be sent: a draft (409), a void invoice (409), no recipient (400), more than 10 (400), a forged address (400), an e-invoice the invoice lacks data for (400)', async () => {
    const customer = await seed.customer({ email: null });
    const draft = await api.call('POST', '/api/v1/invoices', { customer: customer.id, items: [{ description: 'x', unit_amount: 100 }] }, { 'x-idempotency-key': `d-${Math.random()}` });
    expect((await send(draft.body.data.id)).status).toBe(409);
    await api.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': `f-${Math.random()}` });
    const noRecipient = await send(draft.body.data.id);
    expect(noRecipient.status).toBe(400);
    expect(noRecipient.body.errors).toEqual([{ path: 'to', message: expect.any(String) }]);
    const eleven = Array.from({ length: 11 }, (_, index) => `r${index}@buyer.example`);
    expect((await send(draft.body.data.id, { to: eleven })).status).toBe(400);
    expect((await send(draft.body.data.id, { to: ['a@buyer.example'], cc: eleven.slice(0, 10) })).status).toBe(400);
    for (const forged of ['a@buyer.example\r\nBcc: evil@attacker.example', 'a@buyer.example, evil@attacker.example', 'Evil <evil@attacker.example>', '=?utf-8?q?evil?=@attacker.example', 'not-an-address']) {
      const response = await send(draft.body.data.id, { to: [forged] });
      expect(response.status, forged).toBe(400);
    }
    expect((await send(draft.body.data.id, { to: ['a@buyer.example'], attachments: ['xrechnung_cii'] })).status).toBe(400);
    await api.call('POST', `/api/v1/invoices/${draft.body.data.id}/void`, undefined, { 'x-idempotency-key': `v-${Math.random()}` });
    expect((await send(draft.body.data.id, { to: ['a@buyer.example'] })).status).toBe(409);
  }, 60_000);

  it('lets no name, note or business name add a header or a recipient (CR/LF, encoded words)', async () => {
    await api.call('PATCH', '/api/v1/account', { business_name: 'Evil =?utf-8?b?QmNjOiBldmlsQGF0dGFja2VyLmV4YW1wbGU=?= Ltd' });
    const { invoice } = await openInvoice({ name: 'Mallory\r\nBcc: evil@attacker.example\r\nX-Injected: 1', email: 'hostile@buyer.example' });
    const queued = await send(invoice.id, { message: 'Hi\r\nBcc: evil2@attacker.example\r\n\r\n<script>alert(1)</script> =?utf-8?q?Subject:_x?=', attachments: [] });
    expect(queued.status, JSON.stringify(queued.body)).toBe(202);
    await messageWhen(queued.body.data.id, (message) => message.status === 'sent');
    const [mail] = await smtp.waitFor((each) => each.messageId === `<${queued.body.data.id}@platform.example>`);
    expect(mail!.envelopeTo).toEqual(['hostile@buyer.example']);
    expect(mail!.parsed.bcc).toBeUndefined();
    expect(mail!.parsed.headers.has('x-injected')).toBe(false);
    const headerBlock = mail!.raw.split('\r\n\r\n')[0]!;
    expect(headerBlock).not.toMatch(/attacker/i);
    // The subject reads as typed, each `=?` broken up so that it never decodes into anything else.
    expect(mail!.parsed.subject).toBe(`Invoice ${invoice.number} from Evil = ?utf-8?b?QmNjOiBldmlsQGF0dGFja2VyLmV4YW1wbGU= ?= Ltd`);
    expect(mail!.parsed.from?.value[0]?.address).toBe('invoices@platform.example');
    expect(mail!.parsed.html).not.toContain('<script>');
    expect(mail!.parsed.html).toContain('&lt;script&gt;');
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH' });
  }, 60_000);

  it('retries temporary refusals (451, a dropped connection) on MAIL_RETRY_SCHEDULE, once per Message-ID', async () => {
    const { invoice } = await openInvoice({ email: 'later2@buyer.example' });
    const deferred = await send(invoice.id, { attachments: [] });
    const { invoice: second } = await openInvoice({ email: 'drop1@buyer.example' });
    const dropped = await send(second.id, { attachments: [] });
    const afterDeferrals = await messageWhen(deferred.body.data.id, (message) => message.status !== 'queued', 20_000);
    expect(afterDeferrals).toMatchObject({ status: 'sent', attempts: 3, error: null });
    const afterDrop = await messageWhen(dropped.body.data.id, (message) => message.status !== 'queued', 20_000);
    expect(afterDrop).toMatchObject({ status: 'sent', attempts: 2 });
    const deferredMail = (each: ReceivedMail) => each.messageId === `<${deferred.body.data.id}@platform.example>`;
    await smtp.waitFor(deferredMail);
    expect(smtp.received.filter(deferredMail)).toHaveLength(1);
    // Always deferred: given up after 1 + 3 attempts.
    const { invoice: third } = await openInvoice({ email: 'later9@buyer.example' });
    const givenUp = await send(third.id, { attachments: [] });
    const failed = await messageWhen(givenUp.body.data.id, (message) => message.status === 'failed', 20_000);
    expect(failed.attempts).toBe(4);
    expect(failed.error).toMatch(/451/);
    expect(await outboxTypes(failed.id)).toEqual(['billing.message.failed']);
  }, 60_000);

  it('fails a permanent refusal, suppresses the address (later sends fail at once) until the customer’s email changes', async () => {
    const { invoice, customer } = await openInvoice({ email: 'refuse-me@buyer.example' });
    const first = await send(invoice.id, { attachments: [] });
    const failed = await messageWhen(first.body.data.id, (message) => message.status === 'failed');
    expect(failed).toMatchObject({ attempts: 1, error: expect.stringMatching(/550/) });
    expect(await outboxTypes(failed.id)).toEqual(['billing.message.failed', 'billing.email.suppressed']);
    const again = await send(invoice.id, { attachments: [] });
    expect(again.body.data).toMatchObject({ status: 'failed', error: 'suppressed', attempts: 0 });
    // As catalog's consumer of billing.email.suppressed marks it (tested in catalog's own tests):
    await harness.sql(`update catalog.customers set email_status = 'bounced' where email = 'refuse-me@buyer.example'`);
    expect((await send(invoice.id, { attachments: [] })).body.data.error).toBe('suppressed');
    // The customer's email changes (catalog sets it ok again), and back: the address is tried again.
    await seed.updateCustomer(customer.id, { email: 'other@buyer.example' });
    await seed.updateCustomer(customer.id, { email: 'refuse-me@buyer.example' });
    const retried = await send(invoice.id, { attachments: [] });
    expect(retried.body.data.status).toBe('queued');
  }, 60_000);
});
