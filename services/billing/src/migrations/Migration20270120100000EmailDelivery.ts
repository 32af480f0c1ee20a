import { Migration } from '@mikro-orm/migrations';

/**
 * E-mail delivery (issue #22): the account's e-mail settings, the messages with their delivery
 * lease, the addresses a mail server refused for good, and per invoice the day of its last reminder.
 *
 * A message is queued in the transaction of its cause (a send, a finalize with send_on_finalize, a
 * reminder that came due) and claimed by the mail worker under a lease, as webhook deliveries are.
 * One reminder per invoice and local day is enforced by the unique index, whatever the replicas do.
 */
export class Migration20270120100000EmailDelivery extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table billing.accounts
        add column send_on_finalize boolean not null default false,
        add column email_attachments jsonb not null default '["pdf"]',
        add column reminder_days jsonb not null default '[]',
        add column reply_to text`);
    this.addSql('alter table billing.invoices add column last_reminder_on date');
    this.addSql(`
      create table billing.messages (
        id uuid primary key,
        workspace_id uuid not null,
        invoice_id uuid not null,
        kind text not null check (kind in ('invoice', 'reminder')),
        to_addresses jsonb not null,
        cc_addresses jsonb not null,
        subject text not null,
        note text,
        attachment_kinds jsonb not null,
        attachments jsonb not null default '[]',
        reminder_on date,
        status text not null check (status in ('queued', 'sent', 'failed')),
        error text,
        attempts integer not null default 0,
        lease uuid,
        next_attempt_at timestamptz(3),
        correlation_id text,
        sent_at timestamptz(3),
        created_at timestamptz(3) not null
      )`);
    this.addSql('create index messages_of_invoice_newest_first on billing.messages (invoice_id, created_at desc, id desc)');
    this.addSql(`create index messages_due on billing.messages (next_attempt_at) where status = 'queued'`);
    this.addSql(`create unique index messages_one_reminder_per_day on billing.messages (invoice_id, reminder_on) where kind = 'reminder'`);
    this.addSql(`
      create table billing.email_suppressions (
        workspace_id uuid not null,
        address text not null,
        message_id uuid not null,
        reason text not null,
        seen_bounced boolean not null default false,
        created_at timestamptz(3) not null,
        primary key (workspace_id, address)
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table billing.email_suppressions');
    this.addSql('drop table billing.messages');
    this.addSql('alter table billing.invoices drop column last_reminder_on');
    this.addSql('alter table billing.accounts drop column send_on_finalize, drop column email_attachments, drop column reminder_days, drop column reply_to');
  }
}
