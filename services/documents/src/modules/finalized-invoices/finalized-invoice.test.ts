import { randomUUID } from 'node:crypto';
import { BILLING_SUBJECTS, type EventEnvelope, type Invoice } from '@invoicing/contracts';
import { systemClock } from '@invoicing/service-kit/clock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newWorkspace, startDocuments, type DocumentsHarness } from '../../../test/harness.ts';
import { EINVOICE_SHAPES } from '../../../test/support/einvoice-shapes.ts';
import { makeInvoice, makeInvoiceOfShape } from '../../../test/support/invoices.ts';
import { attachmentContentFrom } from '../einvoices/invoice-export.service.ts';
import { storeFinalizedInvoice } from './store-finalized-invoice.ts';

let sut: DocumentsHarness;

beforeAll(async () => {
  sut = await startDocuments('documents_finalized');
});

afterAll(async () => {
  await sut?.close();
});

const finalizedEvent = (workspaceId: string, invoice: Invoice): EventEnvelope => ({
  id: randomUUID(),
  type: BILLING_SUBJECTS.invoiceFinalized,
  occurred_at: invoice.finalized_at!,
  workspace_id: workspaceId,
  correlation_id: 'req-finalize',
  idempotency_key: 'finalize-1',
  actor_key_id: 'key_1',
  data: { object: invoice },
});

describe('on billing.invoice.finalized', () => {
  it('prints the PDF once from the event’s snapshot, and a redelivered event prints nothing', async () => {
    const handle = storeFinalizedInvoice({ em: sut.orm.em, printer: sut.printer, clock: systemClock, attachmentContentOf: attachmentContentFrom(sut.billing.reader) });
    const workspaceId = newWorkspace();
    const invoice = makeInvoice();
    const event = finalizedEvent(workspaceId, invoice);
    const before = sut.prints();

    expect(await handle(event)).toBe('stored');
    expect(await handle(event)).toBe('stored-already');
    expect(await handle({ ...event, id: randomUUID() })).toBe('stored-already');
    expect(sut.prints() - before).toBe(1);

    // Billing is asked for the account's PDF format only, never for the invoice: the download serves what the event stored.
    sut.billing.put(workspaceId, invoice);
    const callsBefore = sut.billing.calls.length;
    const download = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    expect(download.statusCode).toBe(200);
    expect(sut.billing.calls.slice(callsBefore)).toEqual([`account ${workspaceId}`]);
    expect(sut.prints() - before).toBe(1);
  });

  it('stores one PDF when the event and a first download race', async () => {
    const handle = storeFinalizedInvoice({ em: sut.orm.em, printer: sut.printer, clock: systemClock, attachmentContentOf: attachmentContentFrom(sut.billing.reader) });
    const workspaceId = newWorkspace();
    const invoice = sut.billing.put(workspaceId, makeInvoice());
    const [, download] = await Promise.all([handle(finalizedEvent(workspaceId, invoice)), sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`)]);
    const again = await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/pdf`);
    expect(download.statusCode).toBe(200);
    expect(again.headers.etag).toBe(download.headers.etag);
    const rows = await sut.orm.em.fork().execute<{ count: string }[]>('select count(*) from documents.invoice_pdfs where workspace_id = ?', [workspaceId]);
    expect(Number(rows[0]!.count)).toBe(1);
  });

  it('stores every export on billing.invoice.finalized, once', async () => {
    const handle = storeFinalizedInvoice({ em: sut.orm.em, printer: sut.printer, clock: systemClock, attachmentContentOf: attachmentContentFrom(sut.billing.reader) });
    const workspaceId = newWorkspace();
    const invoice = makeInvoiceOfShape(EINVOICE_SHAPES[2]!);
    const event = finalizedEvent(workspaceId, invoice);
    expect(await handle(event)).toBe('stored');
    expect(await handle({ ...event, id: randomUUID() })).toBe('stored-already');
    const rows = await sut.orm.em.fork().execute<{ kind: string; rendered_at: Date }[]>('select kind, rendered_at from documents.invoice_exports where workspace_id = ? order by kind', [workspaceId]);
    expect(rows.map((row) => row.kind)).toEqual(['cii-en16931', 'cii-xrechnung', 'facturx', 'ubl-en16931', 'ubl-xrechnung']);
    // Served from the store: billing is never asked for the invoice.
    const calls = sut.billing.calls.length;
    expect((await sut.getAs(workspaceId, `/api/v1/invoices/${invoice.id}/einvoice?syntax=cii`)).statusCode).toBe(200);
    expect(sut.billing.calls.length).toBe(calls);
  });

  it('skips an event that breaks the contract instead of failing on it for ever', async () => {
    const handle = storeFinalizedInvoice({ em: sut.orm.em, printer: sut.printer, clock: systemClock, attachmentContentOf: attachmentContentFrom(sut.billing.reader) });
    expect(await handle({ ...finalizedEvent(newWorkspace(), makeInvoice()), data: { object: { id: 'in_x' } } })).toBe('unreadable');
  });
});
