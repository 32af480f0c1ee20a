import { randomUUID } from 'node:crypto';
import type { TestSystem } from '../../support/system.ts';

export interface JsonAnswer {
  status: number;
  body: any;
}

/** A bare JSON client: what any HTTP client sends, nothing typed in between. */
export const jsonApi = (gatewayUrl: string, key: string) => async (method: string, path: string, body?: unknown): Promise<JsonAnswer> => {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET') headers['idempotency-key'] = randomUUID();
  const response = await fetch(`${gatewayUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
};
export type JsonApi = ReturnType<typeof jsonApi>;

/** A camt.053.001.08 with a credit of 10.00 naming the invoice and one naming nothing. */
const seedStatement = (number: string, reference: string) => {
  const entry = (amount: string, remittance: string, ref: string) =>
    `<Ntry><Amt Ccy="EUR">${amount}</Amt><CdtDbtInd>CRDT</CdtDbtInd><Sts><Cd>BOOK</Cd></Sts><BookgDt><Dt>2026-01-02</Dt></BookgDt><AcctSvcrRef>${ref}</AcctSvcrRef><BkTxCd/><NtryDtls><TxDtls><RmtInf><Ustrd>${remittance}</Ustrd></RmtInf></TxDtls></NtryDtls></Ntry>`;
  return `<?xml version="1.0" encoding="UTF-8"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.08"><BkToCstmrStmt><GrpHdr><MsgId>SEED</MsgId><CreDtTm>2026-01-02T10:00:00</CreDtTm></GrpHdr><Stmt><Id>SEED</Id><Acct><Id><IBAN>DE89370400440532013000</IBAN></Id></Acct><Bal><Tp><CdOrPrtry><Cd>OPBD</Cd></CdOrPrtry></Tp><Amt Ccy="EUR">0</Amt><CdtDbtInd>CRDT</CdtDbtInd><Dt><Dt>2026-01-02</Dt></Dt></Bal>${entry('10.00', `Invoice ${number}`, `${reference}-1`)}${entry('3.00', 'no invoice named', `${reference}-2`)}</Stmt></BkToCstmrStmt></Document>`;
};

const created = async (answer: Promise<JsonAnswer>, what: string) => {
  const { status, body } = await answer;
  if (status >= 300) throw new Error(`seeding ${what}: ${status} ${JSON.stringify(body)}`);
  return body.data;
};

/** What one seeded workspace holds, for requests that name real things. */
export interface SeededWorkspace {
  slug: string;
  workspaceId: string;
  /** Whose data it seeded: the workspace's live data, or with a test key its test data. */
  mode: 'live' | 'test';
  key: string;
  keyId: string;
  api: JsonApi;
  /** IDs by prefix (`cus`, `prod`, `price`, `in`, `we`, `evt`). */
  ids: Map<string, string[]>;
  invoices: { draft: string; open: string; paid: string; void: string };
  /** Public link tokens of its finalized invoices. */
  tokens: string[];
  webhookSecrets: string[];
}

const addId = (ids: Map<string, string[]>, id: string) => {
  const prefix = id.slice(0, id.lastIndexOf('_'));
  ids.set(prefix, [...(ids.get(prefix) ?? []), id]);
};

export interface SeedOptions {
  /** Seed with a key of this mode (default live): a test key seeds the workspace's test data. */
  mode?: 'live' | 'test';
  /** The workspace to seed, such as one seeded in the other mode already; default a new one. */
  slug?: string;
}

/**
 * A workspace with a key holding every scope, a business profile, two customers, a product and
 * its (recurring) price, invoices in every status, a subscription, a webhook endpoint and the events they produced.
 */
export const seedWorkspace = async (system: TestSystem, label: string, webhookUrl: string, { mode = 'live', slug = `${label}-${randomUUID().slice(0, 8)}` }: SeedOptions = {}): Promise<SeededWorkspace> => {
  const minted = await system.mintKey(slug, 'all', mode);
  const api = jsonApi(system.gatewayUrl, minted.key);
  const ids = new Map<string, string[]>();
  await created(api('PATCH', '/api/v1/account', { business_name: `${label} GmbH`, default_currency: 'EUR', address: { line1: 'Hauptstraße 1', city: 'Köln', postal_code: '50667', country: 'DE' }, tax_id: 'DE123456789' }), 'account');
  const customers = [
    await created(api('POST', '/api/v1/customers', { name: `${label} customer one`, email: 'one@example.com', address: { city: 'Berlin', country: 'DE' } }), 'customer'),
    await created(api('POST', '/api/v1/customers', { name: `${label} customer two` }), 'customer'),
  ];
  const product = await created(api('POST', '/api/v1/products', { name: `${label} workshop` }), 'product');
  // Recurring, so that it can go on a subscription as well as on an invoice line.
  const price = await created(
    api('POST', '/api/v1/prices', { product: product.id, unit_amount: 12_000, currency: 'EUR', tax_rate: 19, type: 'recurring', recurring: { interval: 'month', interval_count: 1 } }),
    'price',
  );
  const invoice = () =>
    created(api('POST', '/api/v1/invoices', { customer: customers[0].id, items: [{ price: price.id, quantity: 2 }, { description: 'Travel', unit_amount: 5_000 }] }), 'invoice');
  const [draft, open, paid, voided] = [await invoice(), await invoice(), await invoice(), await invoice()];
  const tokens: string[] = [];
  for (const finalized of [open, paid, voided]) tokens.push((await created(api('POST', `/api/v1/invoices/${finalized.id}/finalize`), 'finalize')).public_url_token);
  await created(api('POST', `/api/v1/invoices/${paid.id}/pay`, { payment_reference: 'bank transfer' }), 'pay');
  await created(api('POST', `/api/v1/invoices/${voided.id}/void`, { reason: 'duplicate' }), 'void');
  // Starting far ahead, so it makes no invoice while the tests read the workspace's state.
  const subscription = await created(api('POST', '/api/v1/subscriptions', { customer: customers[0].id, items: [{ price: price.id }], start_date: '2099-01-01' }), 'subscription');
  const endpoint = await created(api('POST', '/api/v1/webhook_endpoints', { url: webhookUrl, enabled_events: ['*'] }), 'webhook endpoint');
  const message = await created(api('POST', `/api/v1/invoices/${open.id}/send`, { to: ['one@example.com'], attachments: [] }), 'message');
  // A supporting document on the draft, for the route that names one.
  const attachment = await created(api('POST', `/api/v1/invoices/${draft.id}/attachments`, { filename: 'hours.csv', content_type: 'text/csv', content_base64: Buffer.from('day,hours\n2026-11-02,7.5\n').toString('base64') }), 'attachment');
  for (const id of [...customers.map((c) => c.id), product.id, price.id, draft.id, open.id, paid.id, voided.id, subscription.id, endpoint.id, message.id, attachment.id]) addId(ids, id);
  // Test mode has test clocks: one for the routes that name one.
  if (mode === 'test') addId(ids, (await created(api('POST', '/api/v1/test_clocks', { frozen_time: '2027-01-01T09:00:00.000Z', name: `${label} clock` }), 'test clock')).id);
  // A payment, and a bank statement with a matched and an unmatched entry, for the routes that name them.
  for (const payment of (await api('GET', `/api/v1/invoices/${paid.id}/payments`)).body.data) addId(ids, payment.id);
  const statement = await fetch(`${system.gatewayUrl}/api/v1/bank_statements`, {
    method: 'POST',
    headers: { authorization: `Bearer ${minted.key}`, 'content-type': 'application/xml' },
    body: seedStatement(open.number, randomUUID().slice(0, 13)),
  });
  if (statement.status !== 201) throw new Error(`seeding ${label}: bank statement ${statement.status} ${await statement.text()}`);
  const imported = ((await statement.json()) as { data: { id: string; entries: { data: { id: string }[] } } }).data;
  addId(ids, imported.id);
  for (const entry of imported.entries.data) addId(ids, entry.id);
  // Events reach notifications through the bus: wait until some have arrived.
  const deadline = Date.now() + 15_000;
  let events: { id: string }[] = [];
  while (events.length < 3 && Date.now() < deadline) {
    events = (await api('GET', '/api/v1/events?limit=100')).body?.data ?? [];
    if (events.length < 3) await new Promise((resolve) => setTimeout(resolve, 100));
  }
  if (events.length === 0) throw new Error(`seeding ${label}: no events arrived`);
  for (const event of events.slice(0, 5)) addId(ids, event.id);
  return {
    slug,
    workspaceId: minted.workspace_id,
    mode,
    key: minted.key,
    keyId: minted.key_id,
    api,
    ids,
    invoices: { draft: draft.id, open: open.id, paid: paid.id, void: voided.id },
    tokens,
    webhookSecrets: [endpoint.secret],
  };
};

/** The ID prefix of each collection (`/api/v1/customers` → `cus`), read from what listing it returns. */
export const collectionPrefixes = async (api: JsonApi, listPaths: readonly string[]): Promise<Map<string, string>> => {
  const prefixes = new Map<string, string>();
  for (const path of listPaths.filter((candidate) => /^\/api\/v1\/[a-z_]+$/.test(candidate))) {
    const { status, body } = await api('GET', `${path}?limit=1`);
    const id: unknown = status === 200 ? body?.data?.[0]?.id : undefined;
    if (typeof id === 'string') prefixes.set(path, id.slice(0, id.lastIndexOf('_')));
  }
  // Messages are listed per invoice only (`/invoices/:id/messages`): their prefix comes from there.
  const invoice: unknown = (await api('GET', '/api/v1/invoices?status=open&limit=1')).body?.data?.[0]?.id;
  const message: unknown = typeof invoice === 'string' ? (await api('GET', `/api/v1/invoices/${invoice}/messages?limit=1`)).body?.data?.[0]?.id : undefined;
  if (typeof message === 'string') prefixes.set('/api/v1/messages', message.slice(0, message.lastIndexOf('_')));
  return prefixes;
};
