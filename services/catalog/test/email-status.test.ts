import { randomUUID } from 'node:crypto';
import { BILLING_SUBJECTS, type Customer } from '@invoicing/contracts';
import { createInProcessBus } from '@invoicing/service-kit';
import { createTestDatabase, type TestDatabase } from '@invoicing/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config.ts';
import { catalogService } from '../src/service.ts';
import { gatewayHeaders, INTERNAL_TOKEN } from './harness.ts';

// `email_status`: billing reports an address a mail server refused for good
// (billing.email.suppressed); every customer of that workspace with that email becomes bounced,
// and is ok again once its email changes.
describe('customer email_status', () => {
  let database: TestDatabase;
  let sut: Awaited<ReturnType<typeof catalogService.create>>;
  const bus = createInProcessBus();

  beforeAll(async () => {
    database = await createTestDatabase('catalog_email_status');
    sut = await catalogService.create(loadConfig({ DATABASE_URL: database.url, INTERNAL_TOKEN, LOG_LEVEL: 'silent' }), { bus });
    await sut.start();
  });
  afterAll(async () => {
    await sut?.stop();
    await database?.drop();
  });

  const call = async (workspaceId: string, method: 'GET' | 'POST' | 'PATCH', url: string, body?: unknown) => {
    const reply = await sut.app.inject({ method, url, headers: { ...gatewayHeaders(workspaceId), ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { payload: JSON.stringify(body) } : {}) });
    return reply.json<{ data: Customer }>().data;
  };
  const suppressed = (workspaceId: string, address: string) =>
    bus.publish({
      id: randomUUID(),
      type: BILLING_SUBJECTS.emailSuppressed,
      occurred_at: new Date().toISOString(),
      workspace_id: workspaceId,
      correlation_id: 'req-1',
      idempotency_key: null,
      actor_key_id: null,
      data: { address, message: 'msg_0190f3e2c1b27a8e9d1f3c4b5a697887' },
    });

  it('marks the workspace’s customers with a refused address bounced (case aside, once however often told), no one else; a new email makes it ok', async () => {
    const workspace = randomUUID();
    const other = randomUUID();
    const first = await call(workspace, 'POST', '/api/v1/customers', { name: 'A', email: 'Refused@Buyer.example' });
    const second = await call(workspace, 'POST', '/api/v1/customers', { name: 'B', email: 'refused@buyer.example' });
    const wildcard = await call(workspace, 'POST', '/api/v1/customers', { name: 'C', email: 'refusedXbuyer@buyer.example' });
    const elsewhere = await call(other, 'POST', '/api/v1/customers', { name: 'D', email: 'refused@buyer.example' });
    expect(first.email_status).toBe('ok');

    await suppressed(workspace, 'refused@buyer.example');
    await suppressed(workspace, 'refused@buyer.example');
    expect((await call(workspace, 'GET', `/api/v1/customers/${first.id}`)).email_status).toBe('bounced');
    expect((await call(workspace, 'GET', `/api/v1/customers/${second.id}`)).email_status).toBe('bounced');
    expect((await call(workspace, 'GET', `/api/v1/customers/${wildcard.id}`)).email_status).toBe('ok');
    expect((await call(other, 'GET', `/api/v1/customers/${elsewhere.id}`)).email_status).toBe('ok');

    // A PATCH that does not change the email keeps the status; a new email resets it.
    expect((await call(workspace, 'PATCH', `/api/v1/customers/${first.id}`, { name: 'A2', email: 'Refused@Buyer.example' })).email_status).toBe('bounced');
    expect((await call(workspace, 'PATCH', `/api/v1/customers/${first.id}`, { email: 'new@buyer.example' })).email_status).toBe('ok');
  });
});
