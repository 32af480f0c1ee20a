import { createHash, randomUUID } from 'node:crypto';
import { ATTACHMENT_MAX_BYTES, invoiceAttachmentContentPath } from '@invoicing/contracts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { catalogSeeder, INTERNAL_TOKEN, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

const PDF = Buffer.from('%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\n%%EOF\n', 'latin1');
const PNG = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from('IHDR-and-the-rest')]);
const CSV = Buffer.from('day,hours\n2026-11-02,7.5\nKöln,8\n', 'utf8');
const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const upload = (bytes: Buffer, contentType: string, filename: string, description?: string) => ({
  filename,
  content_type: contentType,
  content_base64: bytes.toString('base64'),
  ...(description === undefined ? {} : { description }),
});

describe('supporting documents (BG-24)', () => {
  let harness: BillingHarness;
  let api: WorkspaceClient;
  let customer: { id: string };

  const createDraft = async (client = api, customerId = customer.id) => {
    const response = await client.call('POST', '/api/v1/invoices', { customer: customerId, items: [{ description: 'Audit', unit_amount: 10_000 }] });
    expect(response.status, JSON.stringify(response.body)).toBe(201);
    return response.body.data as { id: string; attachments: unknown[]; updated_at: string };
  };
  const attach = (invoiceId: string, body: Record<string, unknown>, client = api, key = randomUUID()) =>
    client.call('POST', `/api/v1/invoices/${invoiceId}/attachments`, body, { 'x-idempotency-key': key });
  const rowsOf = async (invoiceId: string) =>
    harness.sql<{ filename: string; position: number; size: number }>(
      `select a.filename, a.position, a.size from billing.invoice_attachments a where a.invoice_id = substr(?, 4)::uuid order by position`,
      [invoiceId],
    );

  beforeAll(async () => {
    harness = await startBillingHarness();
    api = workspaceClient(harness.service);
    customer = await catalogSeeder(harness, api.workspaceId).customer();
  });
  afterAll(async () => {
    await harness?.close();
  });

  it('uploads a PDF, a PNG and a CSV: each listed, in order, with its size and SHA-256, on every read', async () => {
    const draft = await createDraft();
    expect(draft.attachments).toEqual([]);
    const pdf = await attach(draft.id, upload(PDF, 'application/pdf', 'timesheet.pdf', 'Timesheet November'));
    expect(pdf.status, JSON.stringify(pdf.body)).toBe(201);
    expect(pdf.body.data).toEqual({
      id: expect.stringMatching(/^att_[0-9a-f]{32}$/),
      object: 'invoice_attachment',
      livemode: true,
      filename: 'timesheet.pdf',
      content_type: 'application/pdf',
      size: PDF.length,
      sha256: sha256(PDF),
      description: 'Timesheet November',
    });
    const png = (await attach(draft.id, upload(PNG, 'image/png', 'site.png'))).body.data;
    const csv = (await attach(draft.id, upload(CSV, 'text/csv', 'hours.csv', '  '))).body.data;
    expect([png.size, png.sha256, png.description]).toEqual([PNG.length, sha256(PNG), null]);
    expect([csv.size, csv.sha256, csv.description]).toEqual([CSV.length, sha256(CSV), null]);

    const read = (await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data;
    expect(read.attachments).toEqual([pdf.body.data, png, csv]);
    const listed = (await api.call('GET', '/api/v1/invoices?limit=100')).body.data.find((invoice: { id: string }) => invoice.id === draft.id);
    expect(listed.attachments).toEqual([pdf.body.data, png, csv]);
    expect(await rowsOf(draft.id)).toEqual([
      { filename: 'timesheet.pdf', position: 1, size: PDF.length },
      { filename: 'site.png', position: 2, size: PNG.length },
      { filename: 'hours.csv', position: 3, size: CSV.length },
    ]);
  });

  it('reports each change as PATCH does: updated_at moves, an updated entry, invoice.updated with the listing', async () => {
    const draft = await createDraft();
    harness.clock.advance(1_000);
    const added = (await attach(draft.id, upload(CSV, 'text/csv', 'hours.csv'))).body.data;
    const afterAdd = (await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data;
    expect(afterAdd.updated_at > draft.updated_at).toBe(true);
    const deleted = await api.call('DELETE', `/api/v1/invoices/${draft.id}/attachments/${added.id}`);
    expect(deleted.status).toBe(204);
    const timeline = (await api.call('GET', `/api/v1/invoices/${draft.id}/timeline`)).body.data.map((entry: { type: string }) => entry.type);
    expect(timeline).toEqual(['created', 'updated', 'updated']);
    const events = await harness.sql<{ subject: string; attachments: { id: string }[] }>(
      `select subject, envelope->'data'->'object'->'attachments' as attachments from billing.outbox where envelope->'data'->'object'->>'id' = ? order by created_at, id`,
      [draft.id],
    );
    expect(events.map(({ subject, attachments }) => [subject, attachments.map((each) => each.id)])).toEqual([
      ['billing.invoice.created', []],
      ['billing.invoice.updated', [added.id]],
      ['billing.invoice.updated', []],
    ]);
  });

  it('refuses bytes that are not of content_type, bad base64, an empty file and one above 10,000,000 bytes (400 naming content_base64)', async () => {
    const draft = await createDraft();
    const refusals = [
      upload(PNG, 'application/pdf', 'fake.pdf'),
      upload(PDF, 'image/png', 'fake.png'),
      upload(PDF, 'image/jpeg', 'fake.jpg'),
      upload(PDF, 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'fake.xlsx'),
      upload(Buffer.from('a,b\n\u0000\n'), 'text/csv', 'nul.csv'),
      upload(Buffer.from([0x61, 0x2c, 0xff, 0xfe, 0x0a]), 'text/csv', 'latin.csv'),
      { filename: 'x.csv', content_type: 'text/csv', content_base64: 'YW=' },
      { filename: 'x.csv', content_type: 'text/csv', content_base64: 'YQ=a' },
      { filename: 'x.csv', content_type: 'text/csv', content_base64: 'YR==' },
      { filename: 'x.csv', content_type: 'text/csv', content_base64: 'YW Fi' },
      { filename: 'x.csv', content_type: 'text/csv', content_base64: '' },
      upload(Buffer.concat([PDF, Buffer.alloc(ATTACHMENT_MAX_BYTES + 1 - PDF.length)]), 'application/pdf', 'big.pdf'),
    ];
    for (const body of refusals) {
      const response = await attach(draft.id, body);
      expect(response.status, `${body.filename} ${body.content_base64.slice(0, 10)}`).toBe(400);
      expect(response.body.code).toBe('invalid_request');
      expect(JSON.stringify(response.body.errors), body.filename).toContain('content_base64');
    }
    const xlsx = await attach(draft.id, upload(Buffer.from('PK\x03\x04rest-of-the-zip', 'latin1'), 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', 'hours.xlsx'));
    expect(xlsx.status).toBe(201);
    const jpeg = await attach(draft.id, upload(Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3]), 'image/jpeg', 'photo.jpg'));
    expect(jpeg.status).toBe(201);
    expect((await rowsOf(draft.id)).map((row) => row.filename)).toEqual(['hours.xlsx', 'photo.jpg']);
  });

  it('takes exactly 10,000,000 bytes in one document, in a body above 1 MiB', async () => {
    const draft = await createDraft();
    const largest = Buffer.concat([PDF, Buffer.alloc(ATTACHMENT_MAX_BYTES - PDF.length, 0x20)]);
    const response = await attach(draft.id, upload(largest, 'application/pdf', 'largest.pdf'));
    expect(response.status, JSON.stringify(response.body).slice(0, 300)).toBe(201);
    expect(response.body.data).toMatchObject({ size: ATTACHMENT_MAX_BYTES, sha256: sha256(largest) });
  });

  it('answers 413 payload_too_large to a body above the operation’s limit', async () => {
    const draft = await createDraft();
    const response = await attach(draft.id, { filename: 'huge.pdf', content_type: 'application/pdf', content_base64: 'A'.repeat(14_000_000) });
    expect(response.status).toBe(413);
    expect(response.body.code).toBe('payload_too_large');
    // Every other route keeps 1 MiB.
    const patch = await api.call('PATCH', `/api/v1/invoices/${draft.id}`, { notes: 'x'.repeat(1_100_000) });
    expect(patch.status).toBe(413);
  });

  it('takes at most 5 per invoice, even when they race', async () => {
    const draft = await createDraft();
    const responses = await Promise.all(Array.from({ length: 8 }, (_, index) => attach(draft.id, upload(CSV, 'text/csv', `hours-${index}.csv`))));
    expect(responses.map((response) => response.status).sort()).toEqual([201, 201, 201, 201, 201, 400, 400, 400]);
    expect(responses.find((response) => response.status === 400)!.body.detail).toMatch(/at most 5/);
    expect(await rowsOf(draft.id)).toHaveLength(5);
    const read = (await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data;
    // The listing is the files stored, one for one: no racing upload overwrote another's entry.
    expect(read.attachments.map((each: { filename: string }) => each.filename)).toEqual((await rowsOf(draft.id)).map((row) => row.filename));
    expect(read.attachments.map((each: { id: string }) => each.id).sort()).toEqual(responses.filter((response) => response.status === 201).map((response) => response.body.data.id).sort());
    expect((await attach(draft.id, upload(CSV, 'text/csv', 'sixth.csv'))).status).toBe(400);
    // Deleting one makes room for another, placed last.
    await api.call('DELETE', `/api/v1/invoices/${draft.id}/attachments/${read.attachments[1].id}`);
    expect((await attach(draft.id, upload(CSV, 'text/csv', 'sixth.csv'))).status).toBe(201);
    const after = (await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data.attachments.map((each: { filename: string }) => each.filename);
    expect(after).toHaveLength(5);
    expect(after.at(-1)).toBe('sixth.csv');
    expect(after).not.toContain(read.attachments[1].filename);
  });

  it('answers a retry under the same Idempotency-Key with the same attachment and writes no second row', async () => {
    const draft = await createDraft();
    const key = randomUUID();
    const body = upload(PDF, 'application/pdf', 'timesheet.pdf');
    const [first, second] = await Promise.all([attach(draft.id, body, api, key), attach(draft.id, body, api, key)]);
    const third = await attach(draft.id, body, api, key);
    const statuses = [first.status, second.status, third.status];
    expect(statuses.filter((status) => status === 201).length, JSON.stringify(statuses)).toBeGreaterThanOrEqual(2);
    for (const response of [first, second, third].filter((each) => each.status === 201)) expect(response.body.data).toEqual(first.status === 201 ? first.body.data : second.body.data);
    expect(third.headers['idempotent-replayed']).toBe('true');
    expect(await rowsOf(draft.id)).toHaveLength(1);
    // The same key with another body is another request.
    expect((await attach(draft.id, upload(CSV, 'text/csv', 'hours.csv'), api, key))).toMatchObject({ status: 409, body: { code: 'idempotency_key_reused' } });
  });

  it('freezes the listing at finalization: uploads and deletes are 409, the listing stays on every read', async () => {
    const draft = await createDraft();
    const added = (await attach(draft.id, upload(PDF, 'application/pdf', 'timesheet.pdf'))).body.data;
    const finalized = await api.call('POST', `/api/v1/invoices/${draft.id}/finalize`);
    expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
    expect(finalized.body.data.attachments).toEqual([added]);
    const again = await attach(draft.id, upload(CSV, 'text/csv', 'late.csv'));
    expect(again).toMatchObject({ status: 409, body: { code: 'invalid_state' } });
    const removed = await api.call('DELETE', `/api/v1/invoices/${draft.id}/attachments/${added.id}`);
    expect(removed).toMatchObject({ status: 409, body: { code: 'invalid_state' } });
    expect((await api.call('GET', `/api/v1/invoices/${draft.id}`)).body.data.attachments).toEqual([added]);
    expect(await rowsOf(draft.id)).toHaveLength(1);
  });

  it('knows no other workspace’s invoice or attachment (404), nor an unknown one', async () => {
    const other = workspaceClient(harness.service);
    const theirCustomer = await catalogSeeder(harness, other.workspaceId).customer();
    const theirs = await createDraft(other, theirCustomer.id);
    const theirAttachment = (await attach(theirs.id, upload(CSV, 'text/csv', 'theirs.csv'), other)).body.data;
    const mine = await createDraft();
    expect(await attach(theirs.id, upload(CSV, 'text/csv', 'mine.csv'))).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect(await api.call('DELETE', `/api/v1/invoices/${theirs.id}/attachments/${theirAttachment.id}`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    // Their attachment through my invoice: not mine either.
    expect(await api.call('DELETE', `/api/v1/invoices/${mine.id}/attachments/${theirAttachment.id}`)).toMatchObject({ status: 404, body: { code: 'not_found' } });
    expect((await api.call('DELETE', `/api/v1/invoices/${mine.id}/attachments/att_nothex`)).status).toBe(404);
    expect((await attach('in_00000000000000000000000000000000', upload(CSV, 'text/csv', 'x.csv'))).status).toBe(404);
    expect((await other.call('GET', `/api/v1/invoices/${theirs.id}`)).body.data.attachments).toEqual([theirAttachment]);
  });

  it('deletes a draft’s files with the draft', async () => {
    const draft = await createDraft();
    await attach(draft.id, upload(CSV, 'text/csv', 'hours.csv'));
    expect((await api.call('DELETE', `/api/v1/invoices/${draft.id}`)).status).toBe(204);
    expect(await rowsOf(draft.id)).toEqual([]);
  });

  describe('the internal route documents reads a finalized invoice’s file from', () => {
    const content = (workspaceId: string, invoiceId: string, attachmentId: string, token = INTERNAL_TOKEN) =>
      harness.service.app.inject({ method: 'GET', url: invoiceAttachmentContentPath(workspaceId, invoiceId, attachmentId), headers: { 'x-internal-token': token } });

    it('answers the bytes with the size and SHA-256 the invoice lists; nothing for drafts, other workspaces, or without the token', async () => {
      const draft = await createDraft();
      const added = (await attach(draft.id, upload(PNG, 'image/png', 'site.png'))).body.data;
      expect((await content(api.workspaceId, draft.id, added.id)).statusCode).toBe(404);
      await api.call('POST', `/api/v1/invoices/${draft.id}/finalize`);
      const answer = await content(api.workspaceId, draft.id, added.id);
      expect(answer.statusCode).toBe(200);
      expect(answer.headers['content-type']).toBe('image/png');
      expect(answer.headers['x-attachment-size']).toBe(String(PNG.length));
      expect(answer.headers['x-attachment-sha256']).toBe(sha256(PNG));
      expect(answer.rawPayload.equals(PNG)).toBe(true);
      expect((await content(randomUUID(), draft.id, added.id)).statusCode).toBe(404);
      expect((await content(api.workspaceId, draft.id, `att_${randomUUID().replaceAll('-', '')}`)).statusCode).toBe(404);
      expect((await content(api.workspaceId, draft.id, added.id, 'wrong-token-0123456789')).statusCode).toBe(401);
    });
  });
});
