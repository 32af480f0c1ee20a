import { randomUUID } from 'node:crypto';
import { SmtpTestServer } from '@invoicing/testing/smtp-test-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSystem, type TestSystem } from '../support/system.ts';

// E-mail through the gateway, every service its own process on NATS: a permanent refusal reaches
// catalog as billing.email.suppressed (the customer shows `email_status: "bounced"`), later sends
// to it fail at once, and a new email sends again; the webhook events invoice.sent and
// message.failed as notifications records them; the send scope; a reminder on its day, delivered
// and recorded as invoice.reminder_sent.
let system: TestSystem;
let smtp: SmtpTestServer;

beforeAll(async () => {
  smtp = new SmtpTestServer();
  await smtp.listen();
  system = await startSystem({
    services: ['catalog', 'billing', 'notifications'],
    env: { SMTP_URL: smtp.url, MAIL_FROM: 'invoices@e2e.example', MAIL_RETRY_SCHEDULE: '0,1', MAIL_POLL_MS: '100', REMINDER_SWEEP_INTERVAL_MS: '200' },
    ownNats: true,
  });
}, 120_000);

afterAll(async () => {
  await system?.stop();
  await smtp?.close();
});

const poll = async <T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 20_000): Promise<T> => {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
};

describe('e-mail through the gateway', () => {
  it('bounces into catalog, suppresses until the email changes, records invoice.sent and message.failed, and needs invoices:send', async () => {
    const minted = await system.mintKey(`mail-${randomUUID().slice(0, 8)}`, 'all');
    const api = system.client(minted.key);
    const customer = (await api.POST('/api/v1/customers', { body: { name: 'Bouncing AG', email: 'refuse-all@buyer.example' } })).data!.data;
    expect(customer.email_status).toBe('ok');
    const draft = (await api.POST('/api/v1/invoices', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { customer: customer.id, items: [{ description: 'Audit', unit_amount: 10_000 }] } })).data!.data;
    await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } } });
    const send = () => api.POST('/api/v1/invoices/{id}/send', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } }, body: { attachments: [] } });

    const first = await send();
    expect(first.response.status).toBe(202);
    const failed = await poll(
      async () => (await api.GET('/api/v1/messages/{id}', { params: { path: { id: first.data!.data.id } } })).data!.data,
      (message) => message.status !== 'queued',
    );
    expect(failed).toMatchObject({ status: 'failed', attempts: 1 });
    const bounced = await poll(
      async () => (await api.GET('/api/v1/customers/{id}', { params: { path: { id: customer.id } } })).data!.data,
      (read) => read.email_status === 'bounced',
    );
    expect(bounced.email_status).toBe('bounced');
    expect((await send()).data!.data).toMatchObject({ status: 'failed', error: 'suppressed', attempts: 0 });

    await api.PATCH('/api/v1/customers/{id}', { body: { email: 'accounts@buyer.example' }, params: { path: { id: customer.id } } });
    const again = await send();
    const sent = await poll(
      async () => (await api.GET('/api/v1/messages/{id}', { params: { path: { id: again.data!.data.id } } })).data!.data,
      (message) => message.status !== 'queued',
    );
    expect(sent).toMatchObject({ status: 'sent', to: ['accounts@buyer.example'] });
    const listed = await api.GET('/api/v1/invoices/{id}/messages', { params: { path: { id: draft.id } } });
    expect(listed.data!.data.map((message) => message.status)).toEqual(['sent', 'failed', 'failed']);

    // The webhook events, as notifications recorded them from billing's: the sent invoice, and each failed message.
    const eventsOf = async (type: 'invoice.sent' | 'message.failed') =>
      ((await api.GET('/api/v1/events', { params: { query: { type } } })).data?.data ?? []).filter((event) => JSON.stringify(event.data).includes(draft.id));
    const sentEvents = await poll(() => eventsOf('invoice.sent'), (events) => events.length >= 1);
    expect(sentEvents.map((event) => (event.data.object as { id: string; status: string }).id)).toEqual([draft.id]);
    const failedEvents = await poll(() => eventsOf('message.failed'), (events) => events.length >= 2);
    expect(failedEvents.map((event) => (event.data.object as { id: string; error: string }).id).sort()).toEqual([first.data!.data.id, listed.data!.data[1]!.id].sort());
    expect(failedEvents.map((event) => (event.data.object as { object: string }).object)).toEqual(['message', 'message']);

    // A key without invoices:send is refused before anything is looked up.
    const reader = system.client((await system.mintKey(`reader-${randomUUID().slice(0, 8)}`, 'invoices:read')).key);
    const refused = await reader.POST('/api/v1/invoices/{id}/send', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } }, body: {} });
    expect(refused.response.status).toBe(403);
  }, 60_000);

  it('sends a reminder on its day, which reaches the SMTP server and notifications as invoice.reminder_sent', async () => {
    const api = system.client((await system.mintKey(`remind-${randomUUID().slice(0, 8)}`, 'all')).key);
    // Three days before the due date, in the workspace's zone; -2 too, should the date turn meanwhile.
    await api.PATCH('/api/v1/account', { body: { timezone: 'UTC', reminder_days: [-3, -2], email_attachments: [] } });
    const dueDate = new Date(Date.now() + 3 * 86_400_000).toISOString().slice(0, 10);
    const customer = (await api.POST('/api/v1/customers', { body: { name: 'Late Payer GmbH', email: `reminded-${randomUUID().slice(0, 8)}@buyer.example` } })).data!.data;
    const draft = (await api.POST('/api/v1/invoices', { params: { header: { 'Idempotency-Key': randomUUID() } }, body: { customer: customer.id, due_date: dueDate, items: [{ description: 'Audit', unit_amount: 10_000 }] } })).data!.data;
    const finalized = await api.POST('/api/v1/invoices/{id}/finalize', { params: { path: { id: draft.id }, header: { 'Idempotency-Key': randomUUID() } } });
    expect(finalized.data!.data.status).toBe('open');

    const messages = await poll(
      async () => (await api.GET('/api/v1/invoices/{id}/messages', { params: { path: { id: draft.id } } })).data!.data,
      (listed) => listed.some((message) => message.status === 'sent'),
    );
    expect(messages.map((message) => [message.kind, message.status, message.to])).toEqual([['reminder', 'sent', [customer.email]]]);
    const [delivered] = await smtp.waitFor((mail) => mail.envelopeTo.includes(customer.email!));
    expect(delivered!.messageId).toBe(`<${messages[0]!.id}@e2e.example>`);
    const reminded = await poll(
      async () => ((await api.GET('/api/v1/events', { params: { query: { type: 'invoice.reminder_sent' } } })).data?.data ?? []).filter((event) => (event.data.object as { id: string }).id === draft.id),
      (events) => events.length >= 1,
    );
    expect(reminded).toHaveLength(1);
    expect(reminded[0]!.data.object).toMatchObject({ id: draft.id, status: 'open', number: finalized.data!.data.number });
  }, 60_000);
});
