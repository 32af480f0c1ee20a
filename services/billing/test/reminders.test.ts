import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { simpleParser } from 'mailparser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { BillingService } from '../src/service.ts';
import { catalogSeeder, startBillingHarness, workspaceClient, type BillingHarness, type WorkspaceClient } from './support/billing-harness.ts';

// Reminders on reminder_days, in the workspace's time zone, with SMTP_URL unset: each message is
// written as an .eml file, as `npm start` does for a newcomer.
describe('reminders', () => {
  let harness: BillingHarness;
  let replica: BillingService;
  let api: WorkspaceClient;
  let seed: ReturnType<typeof catalogSeeder>;
  let mailDir: string;

  const reminders = async (invoiceId: string) =>
    (await api.call('GET', `/api/v1/invoices/${invoiceId}/messages`)).body.data.filter((message: { kind: string }) => message.kind === 'reminder');
  const settle = async (invoiceId: string) => {
    for (let i = 0; i < 100; i += 1) {
      if ((await reminders(invoiceId)).every((message: { status: string }) => message.status !== 'queued')) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error('reminders stayed queued');
  };

  beforeAll(async () => {
    mailDir = await mkdtemp(join(tmpdir(), 'billing-mail-'));
    harness = await startBillingHarness({ env: { MAIL_DIR: mailDir, MAIL_POLL_MS: '100', REMINDER_SWEEP_INTERVAL_MS: '3600000' } });
    replica = await harness.start();
    api = workspaceClient(harness.service);
    seed = catalogSeeder(harness, api.workspaceId);
    await api.call('PATCH', '/api/v1/account', { business_name: 'Seller GmbH', timezone: 'Europe/Berlin', reminder_days: [7, -3, 0], email_attachments: [], default_currency: 'EUR' });
  });
  afterAll(async () => {
    await harness?.close();
    await rm(mailDir, { recursive: true, force: true });
  });

  it('validates reminder_days and returns them sorted', async () => {
    const account = await api.call('GET', '/api/v1/account');
    expect(account.body.data).toMatchObject({ reminder_days: [-3, 0, 7], email_attachments: [], send_on_finalize: false, reply_to: null });
    for (const reminder_days of [[-31], [366], [1.5], [1, 1], Array.from({ length: 11 }, (_, i) => i)]) {
      expect((await api.call('PATCH', '/api/v1/account', { reminder_days })).status, JSON.stringify(reminder_days)).toBe(400);
    }
    expect((await api.call('PATCH', '/api/v1/account', { reply_to: 'x@y.example\r\nBcc: z@attacker.example' })).status).toBe(400);
  });

  it('sends one reminder per day in the workspace’s time zone, across replicas; catches up missed days once (the latest); stops when paid', async () => {
    const customer = await seed.customer({ email: 'payer@buyer.example' });
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, due_date: '2026-12-10', items: [{ description: 'Audit', unit_amount: 50_000 }] }, { 'x-idempotency-key': 'r-create' });
    const invoice = (await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'r-fin' })).body.data;

    // 6 December, 23:30 UTC: still the 6th in UTC, already the 7th (due − 3) in Berlin.
    harness.clock.set('2026-12-06T22:30:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(0);
    harness.clock.set('2026-12-06T23:30:00.000Z');
    const [first, second] = await Promise.all([harness.service.reminders.sweepOnce(), replica.reminders.sweepOnce()]);
    expect(first + second).toBe(1);
    expect(await harness.service.reminders.sweepOnce()).toBe(0);
    await settle(invoice.id);

    // Down from the 8th to the 20th: the reminders of the 10th (due) and 17th (due + 7) were missed; only the 17th's goes.
    harness.clock.set('2026-12-20T09:00:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(1);
    expect(await replica.reminders.sweepOnce()).toBe(0);
    await settle(invoice.id);
    const sent = await reminders(invoice.id);
    expect(sent.map((message: { status: string; subject: string }) => [message.status, message.subject])).toEqual([
      ['sent', `Reminder: invoice ${invoice.number} from Seller GmbH`],
      ['sent', `Reminder: invoice ${invoice.number} from Seller GmbH`],
    ]);
    const days = await harness.sql<{ reminder_on: string }>(`select to_char(reminder_on, 'YYYY-MM-DD') as reminder_on from billing.messages where invoice_id = ? order by reminder_on`, [
      invoice.id.replace(/^in_(.{8})(.{4})(.{4})(.{4})(.{12})$/, '$1-$2-$3-$4-$5'),
    ]);
    expect(days.map((row) => row.reminder_on)).toEqual(['2026-12-07', '2026-12-17']);

    // The .eml written for it: what a newcomer opens.
    const files = await readdir(mailDir);
    const eml = await readFile(join(mailDir, `${sent[0].id}.eml`), 'utf8');
    expect(files).toContain(`${sent[0].id}.eml`);
    const parsed = await simpleParser(eml);
    expect(parsed.messageId).toBe(`<${sent[0].id}@localhost>`);
    expect(parsed.to).toMatchObject({ value: [{ address: 'payer@buyer.example' }] });
    expect(parsed.text).toContain('Amount due: €500.00 (was due on Dec 10, 2026)');
    expect(parsed.html).toContain('€500.00');

    await api.call('PATCH', '/api/v1/account', { reminder_days: [-3, 0, 7, 30] });
    await api.call('POST', `/api/v1/invoices/${invoice.id}/pay`, undefined, { 'x-idempotency-key': 'r-pay' });
    harness.clock.set('2027-01-10T09:00:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(0);
    const types = await harness.sql<{ type: string }>(`select envelope->>'type' as type from billing.outbox where envelope::text like ? order by created_at, id`, [`%${invoice.id}%`]);
    expect(types.filter((row) => row.type === 'billing.invoice.reminder_sent')).toHaveLength(2);
  }, 60_000);

  it('states what is still to be paid after a partial payment; stops for a voided invoice', async () => {
    await api.call('PATCH', '/api/v1/account', { reminder_days: [-3, 0] });
    harness.clock.set('2027-01-05T09:00:00.000Z');
    const open = async (email: string, key: string) => {
      const customer = await seed.customer({ email });
      const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, due_date: '2027-01-20', items: [{ description: 'Audit', unit_amount: 50_000 }] }, { 'x-idempotency-key': `${key}-create` });
      const finalized = await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`, undefined, { 'x-idempotency-key': `${key}-fin` });
      expect(finalized.status, JSON.stringify(finalized.body)).toBe(200);
      return finalized.body.data as { id: string; number: string };
    };
    const partlyPaid = await open('partly@buyer.example', 'r2-partly');
    const voided = await open('voided@buyer.example', 'r2-voided');
    const payment = await api.call('POST', `/api/v1/invoices/${partlyPaid.id}/payments`, { amount: 12_345 }, { 'x-idempotency-key': 'r2-pay' });
    expect(payment.status, JSON.stringify(payment.body)).toBe(201);

    // Due − 3: both are reminded; the partly paid one of the €376.55 still open, not of its €500.00 total.
    harness.clock.set('2027-01-17T09:00:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(2);
    await settle(partlyPaid.id);
    await settle(voided.id);
    const [partlyReminder] = await reminders(partlyPaid.id);
    const partly = await simpleParser(await readFile(join(mailDir, `${partlyReminder.id}.eml`), 'utf8'));
    expect(partly.text).toContain('Amount due: €376.55 (due by Jan 20, 2027)');
    expect(partly.text).not.toContain('€500.00');
    expect(partly.html).toContain('€376.55');

    // Voided before the due day: that invoice gets no further reminder, the other one does.
    expect((await api.call('POST', `/api/v1/invoices/${voided.id}/void`, undefined, { 'x-idempotency-key': 'r2-void' })).status).toBe(200);
    harness.clock.set('2027-01-20T09:00:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(1);
    await settle(partlyPaid.id);
    expect(await reminders(voided.id)).toHaveLength(1);
    expect((await reminders(partlyPaid.id)).map((message: { status: string }) => message.status)).toEqual(['sent', 'sent']);
  }, 60_000);

  it('attaches of the account’s email_attachments only what the invoice can carry: no XRechnung without a buyer reference, and the reminder still goes', async () => {
    await api.call('PATCH', '/api/v1/account', { reminder_days: [0], email_attachments: ['xrechnung_ubl'] });
    harness.clock.set('2027-02-01T09:00:00.000Z');
    const customer = await seed.customer({ email: 'no-reference@buyer.example' });
    const created = await api.call('POST', '/api/v1/invoices', { customer: customer.id, due_date: '2027-02-10', items: [{ description: 'Audit', unit_amount: 50_000 }] }, { 'x-idempotency-key': 'r3-create' });
    const invoice = (await api.call('POST', `/api/v1/invoices/${created.body.data.id}/finalize`, undefined, { 'x-idempotency-key': 'r3-fin' })).body.data;
    expect(invoice.einvoice.xrechnung.ready).toBe(false);

    harness.clock.set('2027-02-10T09:00:00.000Z');
    expect(await harness.service.reminders.sweepOnce()).toBe(1);
    await settle(invoice.id);
    expect(await reminders(invoice.id)).toMatchObject([{ status: 'sent', attachments: [] }]);
    await api.call('PATCH', '/api/v1/account', { email_attachments: [] });
  }, 60_000);
});
