// @ts-check
// The README's examples in one program: a customer, a draft with two lines, finalize, the PDF,
// pay, the signed webhook it fires, a retry under the same Idempotency-Key, a typed error and a
// list read page by page. Plain JavaScript, so it runs on Node 20 and 24 as installed from npm.
//
//   INVOICING_URL=http://localhost:8080 INVOICING_API_KEY=inv_live_… node first-invoice.mjs
//
// The webhook receiver listens on 127.0.0.1: start the platform with WEBHOOK_ALLOWED_HOSTS=127.0.0.1.
import { createServer } from 'node:http';
import { createInvoicingClient, isApiError, paginate, unwrap, verifyWebhook } from '@invoicing/client';

const api = createInvoicingClient({ baseUrl: process.env.INVOICING_URL ?? 'http://localhost:8080', apiKey: process.env.INVOICING_API_KEY });

// A webhook receiver: every delivery must carry our signature, checked on the raw body.
let secret = '';
/** @type {import('@invoicing/client').WebhookEvent[]} */
const events = [];
const receiver = createServer((request, response) => {
  /** @type {Buffer[]} */
  const chunks = [];
  request.on('data', (chunk) => chunks.push(chunk));
  request.on('end', () => {
    try {
      events.push(verifyWebhook(secret, Buffer.concat(chunks), request.headers));
      response.writeHead(204).end();
    } catch {
      response.writeHead(400).end();
    }
  });
});
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', () => resolve(undefined)));
const port = /** @type {import('node:net').AddressInfo} */ (receiver.address()).port;
const { data: endpoint } = await unwrap(api.POST('/api/v1/webhook_endpoints', { body: { url: `http://127.0.0.1:${port}/hooks`, enabled_events: ['invoice.paid'] } }));
secret = endpoint.secret;

// create → finalize → pay
const { data: customer } = await unwrap(api.POST('/api/v1/customers', { body: { name: 'Müller GmbH', email: 'billing@mueller.example' } }));
const key = crypto.randomUUID();
const body = {
  customer: customer.id,
  currency: 'EUR',
  items: [
    { description: 'Consulting', unit_amount: 12_000, quantity: 2, tax_rate: 19 },
    { description: 'Travel', unit_amount: 4_500, tax_rate: 19 },
  ],
};
const { data: draft } = await unwrap(api.POST('/api/v1/invoices', { params: { header: { 'Idempotency-Key': key } }, body }));
// A retry under the same key (after a timeout, say) gets the first answer, never a second invoice.
const retried = await api.POST('/api/v1/invoices', { params: { header: { 'Idempotency-Key': key } }, body });
const { data: open } = await unwrap(api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id } } }));
const pdf = await api.GET('/api/v1/invoices/{id}/pdf', { params: { path: { id: open.id } }, parseAs: 'arrayBuffer' });
const pdfBytes = new Uint8Array(/** @type {ArrayBuffer} */ (pdf.data));
const { data: paid } = await unwrap(api.POST('/api/v1/invoices/{id}/pay', { params: { path: { id: open.id } }, body: { payment_reference: 'SEPA 4711' } }));

// Typed errors: a paid invoice cannot be voided.
let voidRefusedWith = '';
try {
  await unwrap(api.POST('/api/v1/invoices/{id}/void', { params: { path: { id: paid.id } } }));
} catch (error) {
  if (!isApiError(error, 'invalid_state')) throw error;
  voidRefusedWith = `${error.status} ${error.code}`;
}

// Every invoice, one page of 1 at a time.
const numbers = [];
for await (const invoice of paginate((cursor) => api.GET('/api/v1/invoices', { params: { query: { limit: 1, ...(cursor ? { cursor } : {}) } } }))) {
  numbers.push(invoice.number);
}

const deadline = Date.now() + 20_000;
while (events.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
receiver.close();
receiver.closeAllConnections();

console.log(
  JSON.stringify({
    node: process.version,
    number: open.number,
    total: open.total,
    replayed: retried.response.headers.get('idempotent-replayed') === 'true' && retried.data?.data.id === draft.id,
    pdf: { bytes: pdfBytes.length, magic: new TextDecoder().decode(pdfBytes.subarray(0, 5)) },
    status: paid.status,
    voidRefusedWith,
    numbers,
    webhook: events.map((event) => `${event.type} ${event.data.object.id === paid.id ? 'for this invoice' : 'for another invoice'}`),
  }),
);
