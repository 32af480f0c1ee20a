import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';
import { abnAmroCamt053V02, danskeCamt053V02, dutchCamt053V02, isoCamt053V08, rabobankCamt053V02, ubsCamt054V08, type AbnAmroDay, type RabobankDay } from './support/camt-samples.ts';

const IBAN = 'DE89370400440532013000';

describe('bank statements: camt.053 and camt.054 matched to invoices', () => {
  let harness: BillingHarness;
  let keys = 0;

  /** A workspace of its own (its numbers start at INV/2026/0001) with a customer. */
  const workspace = async () => {
    const api = workspaceClient(harness.service);
    const customer = await catalogSeeder(harness, api.workspaceId).customer();
    const invoice = async (unitAmount: number, currency = 'EUR') => {
      const draft = await api.call('POST', '/api/v1/invoices', { customer: customer.id, currency, items: [{ description: 'Audit', unit_amount: unitAmount }] }, { 'x-idempotency-key': `k-${++keys}` });
      expect(draft.status, JSON.stringify(draft.body)).toBe(201);
      const open = await api.call('POST', `/api/v1/invoices/${draft.body.data.id}/finalize`, undefined, { 'x-idempotency-key': `k-${++keys}` });
      expect(open.status).toBe(200);
      return open.body.data as { id: string; number: string; remittance_reference: string };
    };
    const upload = async (body: string | Buffer, contentType = 'application/xml') => {
      const response = await harness.service.app.inject({
        method: 'POST',
        url: '/api/v1/bank_statements',
        headers: { 'x-internal-token': INTERNAL_TOKEN, 'x-workspace-id': api.workspaceId, 'x-api-key-id': api.keyId, 'x-request-id': `req-${randomUUID()}`, 'content-type': contentType },
        payload: body,
      });
      return { status: response.statusCode, body: response.body ? response.json() : undefined };
    };
    const read = async (id: string) => (await api.call('GET', `/api/v1/invoices/${id}`)).body.data;
    return { api, invoice, upload, read };
  };
  const countRows = async (table: string, workspaceId: string) =>
    Number((await harness.sql<{ count: string }>(`select count(*) as count from billing.${table} where workspace_id = ?`, [workspaceId]))[0]!.count);

  beforeAll(async () => {
    harness = await startBillingHarness();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it("camt.053.001.02 shaped like genkgo/camt's Danske Bank test file: structured creditor references, full and partial payments, unmatched credits, ignored debits and reversals", async () => {
    const { api, invoice, upload, read } = await workspace();
    const a = await invoice(10_000);
    const b = await invoice(10_000);
    const day = danskeCamt053V02(IBAN, [
      { amount: '100.00', remittance: a.remittance_reference.replace(/(.{4})/g, '$1 ').trim(), debtor: 'Müller & Söhne' },
      { amount: '40.00', remittance: b.remittance_reference.toLowerCase() },
      { amount: '12.00', remittance: 'RF71 NOTHING 0815' },
      { amount: '7.00', remittance: a.remittance_reference, credit: false },
      // A returned direct debit booked back (RvslInd): money on the account, but no customer's payment of b.
      { amount: '25.00', remittance: b.remittance_reference, reversal: true },
    ]);
    const response = await upload(day);
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const statement = response.body.data;
    expect(statement).toMatchObject({ object: 'bank_statement', livemode: true, account_iban: IBAN, from: '2026-11-19', to: '2026-11-20', matched_count: 2, unmatched_count: 1 });
    expect(statement.id).toMatch(/^bst_[0-9a-f]{32}$/);
    expect(statement.entries.data.map((entry: { status: string }) => entry.status)).toEqual(['matched', 'matched', 'unmatched', 'ignored', 'ignored']);
    expect(statement.entries.data[0]).toMatchObject({ amount: 10_000, currency: 'EUR', credit_debit: 'credit', booking_date: '2026-11-20', counterparty_name: 'Müller & Söhne', invoice: a.id, bank_reference: null });
    expect(statement.entries.data[3]).toMatchObject({ credit_debit: 'debit', invoice: null, payment: null });
    expect(statement.entries.data[4]).toMatchObject({ credit_debit: 'credit', amount: 2_500, invoice: null, payment: null });

    expect(await read(a.id)).toMatchObject({ status: 'paid', amount_paid: 10_000, amount_remaining: 0, paid_at: '2026-11-20T00:00:00.000Z' });
    expect(await read(b.id)).toMatchObject({ status: 'open', amount_paid: 4_000, amount_remaining: 6_000 });
    const payments = (await api.call('GET', `/api/v1/invoices/${b.id}/payments`)).body.data;
    expect(payments).toEqual([expect.objectContaining({ amount: 4_000, method: 'bank_transfer', bank_statement_entry: statement.entries.data[1].id })]);
    expect(statement.entries.data[1].payment).toBe(payments[0].id);

    // Read back, and listed.
    expect((await api.call('GET', `/api/v1/bank_statements/${statement.id}`)).body.data).toEqual(statement);
    const list = await api.call('GET', '/api/v1/bank_statements');
    expect(list.body.data).toEqual([{ ...statement, entries: undefined }].map(({ entries: _entries, ...summary }) => summary));

    // Imported again: every credit a duplicate, nothing paid twice; the debit ignored again.
    const again = await upload(day);
    expect(again.status).toBe(201);
    expect(again.body.data.entries.data.map((entry: { status: string }) => entry.status)).toEqual(['duplicate', 'duplicate', 'duplicate', 'ignored', 'ignored']);
    expect(again.body.data).toMatchObject({ matched_count: 0, unmatched_count: 0 });
    expect(await read(b.id)).toMatchObject({ amount_paid: 4_000 });
    expect(await countRows('payments', api.workspaceId)).toBe(2);
  });

  it("camt.053.001.02 shaped like the Dutch banks' statements (ABN AMRO, ING): invoice numbers typed by people, other currencies and overpayments left unmatched, then matched by hand", async () => {
    const { api, invoice, upload, read } = await workspace();
    const a = await invoice(25_000); // INV/2026/0001
    const b = await invoice(5_000); // INV/2026/0002
    const usd = await invoice(5_000, 'USD'); // INV/2026/0003
    const response = await upload(
      dutchCamt053V02(IBAN, [
        { amount: '250.00', remittance: 'Factuur inv 2026 0001 bedankt' },
        { amount: '20.00', remittance: 'INV20260002' },
        { amount: '50.00', remittance: 'inv/2026/0003' },
        { amount: '60.00', remittance: 'Invoice INV-2026-0002' },
        { amount: '30.00', remittance: 'for inv 2026/0002 and INV/2026/0001' },
      ]),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const entries = response.body.data.entries.data;
    expect(entries.map((entry: { status: string }) => entry.status)).toEqual(['matched', 'matched', 'unmatched', 'unmatched', 'unmatched']);
    expect(entries[0]).toMatchObject({ invoice: a.id, counterparty_name: 'Klant B.V.', bank_reference: '232070C7H4CY10' });
    expect(await read(a.id)).toMatchObject({ status: 'paid' });
    expect(await read(b.id)).toMatchObject({ amount_remaining: 3_000 });
    expect(await read(usd.id)).toMatchObject({ amount_paid: 0 });

    const match = (entry: string, invoiceId: string) =>
      api.call('POST', `/api/v1/bank_statements/${response.body.data.id}/entries/${entry}/match`, { invoice: invoiceId });
    // 60.00 for an invoice with 30.00 left: a 400, nothing recorded; 30.00 fits.
    expect((await match(entries[3].id, b.id)).status).toBe(400);
    expect((await match(entries[2].id, usd.id)).status).toBe(400);
    const matched = await match(entries[4].id, b.id);
    expect(matched.status, JSON.stringify(matched.body)).toBe(200);
    expect(matched.body.data).toMatchObject({ id: entries[4].id, status: 'matched', invoice: b.id });
    expect(matched.body.data.payment).toMatch(/^pay_/);
    expect(await read(b.id)).toMatchObject({ status: 'paid', amount_paid: 5_000 });
    expect((await match(entries[4].id, a.id)).status).toBe(409);
    expect((await match(entries[0].id, b.id)).status).toBe(409);
    expect((await api.call('GET', `/api/v1/bank_statements/${response.body.data.id}`)).body.data).toMatchObject({ matched_count: 3, unmatched_count: 2 });
  });

  it("camt.054.001.08 shaped like genkgo/camt's UBS test file: a batch booking of several transactions, each matched on its own", async () => {
    const { invoice, upload, read } = await workspace();
    const invoices = [await invoice(12_000, 'CHF'), await invoice(8_050, 'CHF'), await invoice(3_000, 'CHF')];
    const response = await upload(
      ubsCamt054V08('CH2801234000123456789', [
        { amount: '120.00', currency: 'CHF', remittance: invoices[0]!.remittance_reference },
        { amount: '80.50', currency: 'CHF', remittance: invoices[1]!.remittance_reference },
        { amount: '10.00', currency: 'CHF', remittance: invoices[2]!.number },
      ]),
    );
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const entries = response.body.data.entries.data;
    expect(entries).toHaveLength(3);
    expect(entries.map((entry: { bank_reference: string }) => entry.bank_reference)).toEqual(['ACSR160617103200001-1', 'ACSR160617103200001-2', 'ACSR160617103200001-3']);
    expect(entries.map((entry: { status: string }) => entry.status)).toEqual(['matched', 'matched', 'matched']);
    expect(await read(invoices[0]!.id)).toMatchObject({ status: 'paid' });
    expect(await read(invoices[1]!.id)).toMatchObject({ status: 'paid' });
    expect(await read(invoices[2]!.id)).toMatchObject({ status: 'open', amount_remaining: 2_000 });
  });

  it("camt.053.001.02 as ABN AMRO's example day statement has it: text only in AddtlNtryInf, and an acceptgiro batch whose transactions all repeat the entry's bank reference, each paid once", async () => {
    const { api, invoice, upload, read } = await workspace();
    const domestic = await invoice(1_000);
    const transfer = await invoice(2_000);
    const acceptgiro = await invoice(3_000);
    const batch = [await invoice(1_100), await invoice(1_200), await invoice(1_300)];
    const day: AbnAmroDay = {
      domestic: { amount: '10.00', remittance: `11.11.111.111 ${domestic.number} Naam Adres 7 2960 Dorp` },
      transfer: { amount: '20.00', remittance: `${transfer.number.toLowerCase().replaceAll('/', ' ')} bedankt` },
      acceptgiro: { amount: '30.00', remittance: acceptgiro.remittance_reference },
      batch: batch.map((each, index) => ({ amount: `${11 + index}.00`, remittance: each.remittance_reference })),
      debit: { amount: '01.00', remittance: '2026-33' },
    };
    const response = await upload(abnAmroCamt053V02(IBAN, day));
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    const entries = response.body.data.entries.data as { status: string; amount: number; bank_reference: string | null; invoice: string | null; credit_debit: string }[];
    expect(entries.map((entry) => [entry.status, entry.amount, entry.invoice])).toEqual([
      ['matched', 1_000, domestic.id],
      ['matched', 2_000, transfer.id],
      ['matched', 3_000, acceptgiro.id],
      ...batch.map((each, index) => ['matched', 1_100 + index * 100, each.id]),
      ['ignored', 100, null],
    ]);
    // The single acceptgiro and every transaction of the batch carry the same bank reference: not duplicates of each other.
    expect(entries.slice(2, 6).map((entry) => entry.bank_reference)).toEqual(Array(4).fill('3095D4322561460S0PS'));
    expect(response.body.data).toMatchObject({ matched_count: 6, unmatched_count: 0 });
    for (const each of [domestic, transfer, acceptgiro, ...batch]) expect(await read(each.id)).toMatchObject({ status: 'paid' });
    expect(await countRows('payments', api.workspaceId)).toBe(6);

    // The same day downloaded again: every credit a duplicate, nothing paid twice.
    const again = await upload(abnAmroCamt053V02(IBAN, day));
    expect(again.status).toBe(201);
    expect(again.body.data.entries.data.map((entry: { status: string }) => entry.status)).toEqual([...Array(6).fill('duplicate'), 'ignored']);
    expect(await countRows('payments', api.workspaceId)).toBe(6);
  });

  it("camt.053.001.02 as a Rabobank export has it: one statement per business day in one document, no bank reference; an export of overlapping days pays nothing twice", async () => {
    const { invoice, upload, read } = await workspace();
    const [a, b, c] = [await invoice(442_525), await invoice(100_000), await invoice(50_000)];
    const week: RabobankDay[] = [
      { date: '2026-11-16', credits: [] },
      { date: '2026-11-17', credits: [{ amount: '4425.25', remittance: a.number.replaceAll('/', ' ') }] },
      { date: '2026-11-18', credits: [] },
      // The payer's name run into the number, as Rabobank's exports show typed text.
      { date: '2026-11-19', credits: [{ amount: '400.00', remittance: `ROOTDEV${b.number}`, debtor: 'ROOTDEV' }, { amount: '40.76', remittance: 'Belastingdienst', credit: false }] },
      { date: '2026-11-20', credits: [] },
    ];
    const first = await upload(rabobankCamt053V02('NL17RABO0310029597', week));
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.data).toMatchObject({ account_iban: 'NL17RABO0310029597', from: '2026-11-17', to: '2026-11-19', matched_count: 2, unmatched_count: 0 });
    expect(first.body.data.entries.data.map((entry: { status: string; bank_reference: string | null }) => [entry.status, entry.bank_reference])).toEqual([
      ['matched', null],
      ['matched', null],
      ['ignored', null],
    ]);
    expect(await read(a.id)).toMatchObject({ status: 'paid' });
    expect(await read(b.id)).toMatchObject({ status: 'open', amount_remaining: 60_000 });

    // The next download overlaps: the 19th and 20th again, then a new day. Only the new day's credits count.
    const next = await upload(rabobankCamt053V02('NL17RABO0310029597', [...week.slice(3), { date: '2026-11-23', credits: [{ amount: '500.00', remittance: `${c.number.toLowerCase()} dank u` }, { amount: '600.00', remittance: b.number }] }], 'CAMT053RIB000001048086'));
    expect(next.status, JSON.stringify(next.body)).toBe(201);
    expect(next.body.data.entries.data.map((entry: { status: string }) => entry.status)).toEqual(['duplicate', 'ignored', 'matched', 'matched']);
    expect(await read(b.id)).toMatchObject({ status: 'paid', amount_paid: 100_000 });
    expect(await read(c.id)).toMatchObject({ status: 'paid', amount_paid: 50_000 });
  });

  it("camt.053.001.08 with the ISO 20022 example's identifiers; a statement imported 5 times at once pays each invoice once", async () => {
    const { api, invoice, upload, read } = await workspace();
    const invoices = await Promise.all([invoice(10_000), invoice(20_000), invoice(30_000)]);
    const xml = isoCamt053V08(IBAN, [
      ...invoices.map((each, index) => ({ amount: `${(index + 1) * 50}.00`, remittance: `Payment ${each.number}` })),
      { amount: '5.00', remittance: `no reference ${invoices[0]!.number}`, reference: null },
    ]);
    const results = await Promise.all(Array.from({ length: 5 }, () => upload(xml)));
    expect(results.map((result) => result.status)).toEqual([201, 201, 201, 201, 201]);
    const matched = results.map((result) => result.body.data.matched_count);
    expect(matched.sort()).toEqual([0, 0, 0, 0, 4]);
    expect(await countRows('payments', api.workspaceId)).toBe(4);
    expect(await read(invoices[0]!.id)).toMatchObject({ amount_paid: 5_500 });
    expect(await read(invoices[1]!.id)).toMatchObject({ amount_paid: 10_000 });
    expect(await read(invoices[2]!.id)).toMatchObject({ amount_paid: 15_000 });
    const statuses = results.flatMap((result) => result.body.data.entries.data.map((entry: { status: string }) => entry.status));
    expect(statuses.filter((status) => status === 'duplicate')).toHaveLength(16);
  });

  it('refuses malformed, unsafe, invalid and huge documents with a 400 or 413, recording nothing', async () => {
    const { api, upload } = await workspace();
    const valid = isoCamt053V08(IBAN, [{ amount: '1.00', remittance: 'x' }]);
    const bomb = `<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt>&lol3;</BkToCstmrStmt></Document>`;
    const external = `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">&e;</Document>`;
    const deep = `<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08">${'<a>'.repeat(100_000)}${'</a>'.repeat(100_000)}</Document>`;
    const cases: [string, string | Buffer, number, string?][] = [
      ['empty', '', 400],
      ['not XML', 'hello', 400],
      ['truncated', valid.slice(0, valid.length / 2), 400],
      ['entity expansion', bomb, 400],
      ['external entity', external, 400],
      ['deep nesting', deep, 400],
      ['another message', valid.replaceAll('camt.053.001.08', 'pain.001.001.09'), 400],
      ['an unsupported version', valid.replaceAll('camt.053.001.08', 'camt.053.001.13'), 400],
      ['against the schema', valid.replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>MAYBE</CdtDbtInd>'), 400],
      ['JSON', '{"statement":1}', 400, 'application/json'],
      ['larger than 10 MB', valid.replace('<Ustrd>x</Ustrd>', `<Ustrd>${'x'.repeat(140)}</Ustrd>`.repeat(80_000)), 413],
    ];
    for (const [name, body, status, contentType] of cases) {
      const started = performance.now();
      const response = await upload(body, contentType);
      expect(response.status, `${name}: ${JSON.stringify(response.body).slice(0, 300)}`).toBe(status);
      expect(response.body.code, name).toBe(status === 413 ? 'payload_too_large' : 'invalid_request');
      expect(performance.now() - started, name).toBeLessThan(10_000);
    }
    const schemaError = await upload(valid.replace('<CdtDbtInd>CRDT</CdtDbtInd>', '<CdtDbtInd>MAYBE</CdtDbtInd>'));
    expect(schemaError.body.errors[0].message).toMatch(/CdtDbtInd/);
    // What is wrong is named: a download cut short, a bare ampersand.
    const cut = await upload(valid.slice(0, valid.indexOf('<Ntry>')));
    expect(cut.body.errors).toEqual([{ path: 'body', message: 'not well-formed XML: the document ends with elements left open (Document > BkToCstmrStmt > Stmt)' }]);
    const ampersand = await upload(valid.replace('<Ustrd>x</Ustrd>', '<Ustrd>Müller & Söhne</Ustrd>'));
    expect(ampersand.status).toBe(400);
    expect(ampersand.body.errors[0].message).toMatch(/^not well-formed XML at line \d+, column \d+: char '&' is not expected/);
    expect(await countRows('bank_statements', api.workspaceId)).toBe(0);
    expect(await countRows('bank_statement_entries', api.workspaceId)).toBe(0);
  });
});
