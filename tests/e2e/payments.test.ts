import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dutchCamt053V02, ubsCamt054V08 } from '../../services/billing/test/support/camt-samples.ts';
import { expectProblem, expectRefusedAsTooLarge } from '../support/problems.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog', 'billing'] });
});

afterAll(async () => {
  await system?.stop();
});

const key = () => ({ 'Idempotency-Key': randomUUID() });

const workspace = async () => {
  const minted = await system.mintKey(`payments-${randomUUID().slice(0, 8)}`, 'all');
  const api = system.client(minted.key);
  await api.PATCH('/api/v1/account', { body: { default_currency: 'EUR' } });
  const customer = (await api.POST('/api/v1/customers', { body: { name: 'Müller GmbH' } })).data!.data;
  const invoice = async (unitAmount: number) => {
    const draft = (await api.POST('/api/v1/invoices', { params: { header: key() }, body: { customer: customer.id, items: [{ description: 'Audit', unit_amount: unitAmount }] } })).data!.data;
    return (await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: key() } })).data!.data;
  };
  const upload = (body: string, contentType = 'application/xml') =>
    fetch(`${system.gatewayUrl}/api/v1/bank_statements`, { method: 'POST', headers: { authorization: `Bearer ${minted.key}`, 'content-type': contentType }, body });
  return { api, invoice, upload, minted };
};

describe('payments and bank statements through the gateway', () => {
  it('records partial payments with the typed client; pay records what is left', async () => {
    const { api, invoice } = await workspace();
    const open = await invoice(10_000);
    expect(open.remittance_reference).toMatch(/^RF\d{2}INV\d{8}$/);
    const paid = await api.POST('/api/v1/invoices/{id}/payments', { params: { path: { id: open.id }, header: key() }, body: { amount: 2_500, method: 'card' } });
    expect(paid.response.status).toBe(201);
    expect(paid.data!.data).toMatchObject({ object: 'payment', livemode: true, amount: 2_500, method: 'card', invoice: open.id });
    expectProblem(await api.POST('/api/v1/invoices/{id}/payments', { params: { path: { id: open.id }, header: key() }, body: { amount: 7_501 } }), 400, 'invalid_request');
    expectProblem(await api.POST('/api/v1/invoices/{id}/void', { params: { path: { id: open.id }, header: key() } }), 409, 'invalid_state');
    const rest = await api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: open.id }, header: key() } });
    expect(rest.data!.data).toMatchObject({ status: 'paid', amount_paid: 10_000, amount_remaining: 0 });
    const list = await api.GET('/api/v1/invoices/{id}/payments', { params: { path: { id: open.id } } });
    expect(list.data!.data.map((payment) => payment.amount)).toEqual([2_500, 7_500]);
  });

  it('imports an XML statement through the gateway, refuses JSON and bodies above 10 MB', async () => {
    const { api, invoice, upload } = await workspace();
    const open = await invoice(10_000);
    const xml = dutchCamt053V02('DE89370400440532013000', [{ amount: '100.00', remittance: open.number!.toLowerCase().replaceAll('/', ' ') }]);
    const imported = await upload(xml);
    expect(imported.status).toBe(201);
    const statement = ((await imported.json()) as { data: { id: string; matched_count: number; entries: { data: { status: string }[] } } }).data;
    expect(statement.matched_count).toBe(1);
    expect((await api.GET('/api/v1/invoices/{id}', { params: { path: { id: open.id } } })).data!.data.status).toBe('paid');
    const read = await api.GET('/api/v1/bank_statements/{id}', { params: { path: { id: statement.id } } });
    expect(read.data!.data.entries.data[0]!.status).toBe('matched');
    expect((await api.GET('/api/v1/bank_statements')).data!.data.map((each) => each.id)).toEqual([statement.id]);

    const json = await upload('{"a":1}', 'application/json');
    expect(json.status).toBe(400);
    // Above the 1 MiB of JSON bodies, below 10 MB: taken.
    const big = ubsCamt054V08('CH2801234000123456789', Array.from({ length: 3_000 }, (_, index) => ({ amount: '1.00', remittance: `R${index}`.padEnd(35, 'x'), debtor: 'D'.repeat(140) })));
    expect(big.length).toBeGreaterThan(1024 * 1024);
    const bigAnswer = await upload(big);
    expect(bigAnswer.status).toBe(201);
    await expectRefusedAsTooLarge(upload(`<Document>${'x'.repeat(10 * 1024 * 1024)}</Document>`));
    expect((await api.GET('/api/v1/bank_statements')).data!.data).toHaveLength(2);
  });

  it('answers hostile statement bodies through the gateway with a 400 naming what is wrong, at once, recording nothing', async () => {
    const { api, upload } = await workspace();
    const camt = 'urn:iso:std:iso:20022:tech:xsd:camt.053.001.08';
    const valid = dutchCamt053V02('DE89370400440532013000', [{ amount: '1.00', remittance: 'x' }]);
    const hostile: [string, string, RegExp][] = [
      ['entity expansion', `<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]><Document xmlns="${camt}">&d;</Document>`, /DOCTYPE/],
      ['external entity', `<?xml version="1.0"?><!DOCTYPE d [<!ENTITY e SYSTEM "file:///etc/passwd">]><Document xmlns="${camt}">&e;</Document>`, /DOCTYPE/],
      ['deep nesting', `<Document xmlns="${camt}">${'<a>'.repeat(200_000)}${'</a>'.repeat(200_000)}</Document>`, /nest/],
      ['truncated', valid.slice(0, Math.floor(valid.length * 0.6)), /not well-formed XML: the document ends with elements left open \(Document > /],
      ['not XML', 'statement.csv;1.00;EUR', /camt namespace/],
    ];
    for (const [what, body, reason] of hostile) {
      const started = performance.now();
      const answer = await upload(body);
      expect(answer.status, what).toBe(400);
      expect(answer.headers.get('content-type'), what).toMatch(/^application\/problem\+json/);
      const problem = (await answer.json()) as { code: string; errors: { message: string }[] };
      expect(problem.code, what).toBe('invalid_request');
      expect(problem.errors.map((error) => error.message).join(' '), what).toMatch(reason);
      expect(performance.now() - started, what).toBeLessThan(10_000);
    }
    expect((await api.GET('/api/v1/bank_statements')).data!.data).toHaveLength(0);
  });
});
