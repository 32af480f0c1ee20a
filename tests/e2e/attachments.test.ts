import { createHash, randomUUID } from 'node:crypto';
import { ATTACHMENT_MAX_BYTES } from '@invoicing/contracts';
import { createServiceClient } from '@invoicing/service-kit';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttachmentMismatchError, billingReader } from '../../services/documents/src/shared/billing.ts';
import { expectRefusedAsTooLarge } from '../support/problems.ts';
import { startSystem, type TestSystem } from '../support/system.ts';

let system: TestSystem;

beforeAll(async () => {
  system = await startSystem({ services: ['catalog', 'billing'] });
});

afterAll(async () => {
  await system?.stop();
});

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
/** The largest document taken: a PDF of exactly 10,000,000 bytes, a body of about 13.3 MB. */
const LARGEST = Buffer.concat([Buffer.from('%PDF-1.7\n', 'latin1'), Buffer.alloc(ATTACHMENT_MAX_BYTES - 9, 0x20)]);

const workspace = async () => {
  const minted = await system.mintKey(`attachments-${randomUUID().slice(0, 8)}`, 'all');
  const api = system.client(minted.key);
  const customer = (await api.POST('/api/v1/customers', { body: { name: 'Müller GmbH' } })).data!.data;
  const draft = (await api.POST('/api/v1/invoices', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { customer: customer.id, currency: 'EUR', items: [{ description: 'Audit', unit_amount: 10_000 }] } })).data!.data;
  const attach = (body: string, key = randomUUID()) =>
    fetch(`${system.gatewayUrl}/api/v1/invoices/${draft.id}/attachments`, {
      method: 'POST',
      headers: { authorization: `Bearer ${minted.key}`, 'content-type': 'application/json', 'idempotency-key': key },
      body,
    });
  return { api, draft, attach, minted };
};

describe('supporting documents through the gateway', () => {
  it('takes a 10,000,000-byte document (a 13 MB body), replays it under its key, and answers 413 above the limit', async () => {
    const { api, draft, attach } = await workspace();
    const body = JSON.stringify({ filename: 'scan.pdf', content_type: 'application/pdf', content_base64: LARGEST.toString('base64') });
    expect(body.length).toBeGreaterThan(13_000_000);
    const key = randomUUID();
    const first = await attach(body, key);
    expect(first.status).toBe(201);
    const created = ((await first.json()) as { data: { id: string; size: number; sha256: string } }).data;
    expect(created).toMatchObject({ size: ATTACHMENT_MAX_BYTES, sha256: sha256(LARGEST) });
    const retry = await attach(body, key);
    expect(retry.status).toBe(201);
    expect(retry.headers.get('idempotent-replayed')).toBe('true');
    expect(((await retry.json()) as { data: unknown }).data).toEqual(created);
    const read = (await api.GET('/api/v1/invoices/{id}', { params: { path: { id: draft.id } } })).data!.data;
    expect(read.attachments.map((each) => each.id)).toEqual([created.id]);

    await expectRefusedAsTooLarge(attach(JSON.stringify({ filename: 'huge.pdf', content_type: 'application/pdf', content_base64: 'A'.repeat(14_000_000) })));
    // Within the body limit but more than 10,000,000 bytes decoded: the document is refused, not the body.
    const decodedTooLarge = await attach(JSON.stringify({ filename: 'big.pdf', content_type: 'application/pdf', content_base64: Buffer.concat([LARGEST, Buffer.alloc(3)]).toString('base64') }));
    expect(decodedTooLarge.status).toBe(400);
    expect(JSON.stringify(await decodedTooLarge.json())).toContain('content_base64');
  });

  it('gives documents the bytes of a finalized invoice’s document, checked against its listing', async () => {
    const { api, draft, attach, minted } = await workspace();
    const csv = Buffer.from('day,hours\n2026-11-02,7.5\n');
    const added = ((await (await attach(JSON.stringify({ filename: 'hours.csv', content_type: 'text/csv', content_base64: csv.toString('base64') }))).json()) as { data: { id: string } }).data;
    const client = createServiceClient({ baseUrl: system.urls.billing!, name: 'billing', internalToken: system.internalToken, timeoutMs: 10_000 });
    const reader = billingReader(client);
    try {
      // A draft's documents may still change: documents gets none of them.
      await expect(reader.attachmentContent(minted.workspace_id, draft.id, added.id)).rejects.toMatchObject({ code: 'not_found' });
      await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } } });
      expect((await reader.attachmentContent(minted.workspace_id, draft.id, added.id)).equals(csv)).toBe(true);
      await expect(reader.attachmentContent(randomUUID(), draft.id, added.id)).rejects.toMatchObject({ code: 'not_found' });
      // Bytes that are not those the invoice lists (a file changed behind billing's back) are refused.
      const database = new pg.Client({ connectionString: system.databaseUrl });
      await database.connect();
      try {
        await database.query(`update billing.invoice_attachments set content = $1 where id = $2::uuid`, [Buffer.from('day,hours\n2026-11-02,9.5\n'), added.id.slice(4)]);
      } finally {
        await database.end();
      }
      await expect(reader.attachmentContent(minted.workspace_id, draft.id, added.id)).rejects.toBeInstanceOf(AttachmentMismatchError);
    } finally {
      await client.close();
    }
  });
});
