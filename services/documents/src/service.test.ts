import { randomUUID } from 'node:crypto';
import { BILLING_SUBJECTS } from '@invoicing/contracts';
import { createInProcessBus } from '@invoicing/service-kit';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { gatewayHeaders, INTERNAL_TOKEN, newWorkspace } from '../test/harness.ts';
import { browserProcesses } from '../test/support/browser-processes.ts';
import { makeInvoice } from '../test/support/invoices.ts';
import { loadConfig } from './config.ts';
import { documentsService, type DocumentsService } from './service.ts';

let database: TestDatabase;
let sut: DocumentsService | undefined;

beforeAll(async () => {
  database = await createTestDatabase('documents_service');
});

afterAll(async () => {
  await sut?.stop();
  await database?.drop();
});

describe('the documents service as its hosts run it', () => {
  it('starts no Chromium until the first PDF is needed, launches one for it, and closes it when it stops', async () => {
    const bus = createInProcessBus();
    const config = loadConfig({
      DATABASE_URL: database.url,
      INTERNAL_TOKEN,
      LOG_LEVEL: 'silent',
      ...(process.env.CHROMIUM_PATH ? { CHROMIUM_PATH: process.env.CHROMIUM_PATH } : {}),
    });
    sut = await documentsService.create(config, { bus });
    await sut.start();
    // Long enough for a browser launched at start (as the service once did) to show up.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(browserProcesses()).toEqual([]);

    const workspaceId = newWorkspace();
    const invoice = makeInvoice();
    await bus.publish({
      id: randomUUID(),
      type: BILLING_SUBJECTS.invoiceFinalized,
      occurred_at: invoice.finalized_at!,
      workspace_id: workspaceId,
      correlation_id: 'req-finalize',
      idempotency_key: null,
      actor_key_id: 'key_1',
      data: { object: invoice },
    });
    // The in-process bus resolves once the consumer has printed and stored it; billing is never asked.
    const pdf = await sut.app.inject({ method: 'GET', url: `/api/v1/invoices/${invoice.id}/pdf?format=standard`, headers: gatewayHeaders(workspaceId) });
    expect(pdf.statusCode).toBe(200);
    expect(pdf.rawPayload.subarray(0, 5).toString()).toBe('%PDF-');
    expect(browserProcesses()).toHaveLength(1);

    await sut.stop();
    sut = undefined;
    expect(browserProcesses()).toEqual([]);
  });
});
