import { keyedWritesTableSql, outboxClaimColumnsSql, outboxTableSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/** Subscriptions, their items by the period they apply from, each period's invoice request, keyed writes and the event outbox. */
export class Migration20270130100000CreateSubscriptions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table subscriptions.subscriptions (
      id uuid primary key,
      workspace_id uuid not null,
      customer_id uuid not null,
      status text not null check (status in ('active', 'canceled')),
      currency char(3) not null,
      interval text not null check (interval in ('day', 'week', 'month', 'year')),
      interval_count smallint not null check (interval_count between 1 and 52),
      collection_method text not null check (collection_method in ('send_invoice', 'charge_automatically')),
      days_until_due smallint null,
      invoice_behavior text not null check (invoice_behavior in ('finalize', 'draft')),
      start_date date not null,
      time_zone text not null,
      periods_invoiced integer not null default 0,
      next_action_at timestamptz(3) null,
      cancel_at date null,
      canceled_at timestamptz(3) null,
      metadata jsonb not null default '{}',
      claimed_until timestamptz(3) null,
      last_error text null,
      created_at timestamptz(3) not null,
      updated_at timestamptz(3) not null
    )`);
    this.addSql('create index subscriptions_newest_first on subscriptions.subscriptions (workspace_id, created_at desc, id desc)');
    this.addSql('create index subscriptions_by_customer on subscriptions.subscriptions (workspace_id, customer_id, created_at desc, id desc)');
    this.addSql('create index subscriptions_due on subscriptions.subscriptions (next_action_at) where next_action_at is not null');
    this.addSql(`create table subscriptions.subscription_items (
      id uuid primary key,
      subscription_id uuid not null references subscriptions.subscriptions (id) on delete cascade deferrable initially deferred,
      workspace_id uuid not null,
      effective_from date not null,
      position smallint not null,
      price_id uuid not null,
      quantity integer not null check (quantity >= 1),
      unique (subscription_id, effective_from, position)
    )`);
    this.addSql(`create table subscriptions.subscription_periods (
      subscription_id uuid not null references subscriptions.subscriptions (id) on delete cascade deferrable initially deferred,
      period_start date not null,
      workspace_id uuid not null,
      period_end date not null,
      request jsonb not null,
      invoice_id uuid null,
      finalized boolean not null default false,
      created_at timestamptz(3) not null,
      primary key (subscription_id, period_start)
    )`);
    for (const sql of [...outboxTableSql('subscriptions'), ...outboxClaimColumnsSql('subscriptions'), ...keyedWritesTableSql('subscriptions')]) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop schema if exists subscriptions cascade');
  }
}
