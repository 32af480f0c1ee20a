import { outboxTableSql, trigramOperatorClass } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

const MAX_AMOUNT = '9007199254740991';
const amount = (column: string) => `${column} bigint not null check (${column} between 0 and ${MAX_AMOUNT})`;

/**
 * Accounts, invoices and their lines, number series, the invoice timeline and the event outbox.
 * The database itself refuses a second invoice with the same number in a workspace, a second
 * holder of a sequence value in a series, and a number on a draft. Lines and timeline entries
 * reference their invoice through deferred foreign keys: the unit of work may insert them in any
 * order within the transaction.
 */
export class Migration20261123100000CreateBilling extends Migration {
  override async up(): Promise<void> {
    const trgm = await trigramOperatorClass((sql) => this.execute(sql));

    this.addSql(`
      create table billing.accounts (
        workspace_id uuid primary key,
        business_name text,
        email text,
        address jsonb not null,
        tax_id text,
        default_currency char(3) not null check (default_currency ~ '^[A-Z]{3}$'),
        timezone text not null,
        number_format text not null,
        payment_instructions text,
        brand_color text,
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null
      )`);

    this.addSql(`
      create table billing.invoices (
        id uuid primary key,
        workspace_id uuid not null,
        status text not null check (status in ('draft', 'open', 'paid', 'void')),
        customer_id uuid not null,
        customer_name text not null,
        currency char(3) not null check (currency ~ '^[A-Z]{3}$'),
        collection_method text not null check (collection_method in ('send_invoice', 'charge_automatically')),
        issue_date date not null,
        due_date date check (due_date >= issue_date),
        days_until_due smallint check (days_until_due between 0 and 365),
        notes text,
        footer text,
        ${amount('subtotal')},
        ${amount('discount_total')},
        ${amount('taxable_amount')},
        ${amount('tax_total')},
        ${amount('total')},
        ${amount('amount_due')},
        ${amount('amount_paid')},
        number text,
        number_format text,
        number_period text,
        number_sequence bigint check (number_sequence > 0),
        business_snapshot jsonb,
        customer_snapshot jsonb,
        public_url_token text,
        snapshot_sha256 char(64),
        chain_sha256 char(64),
        finalized_at timestamptz(3),
        paid_at timestamptz(3),
        payment_reference text,
        voided_at timestamptz(3),
        void_reason text,
        overdue_event_at timestamptz(3),
        created_at timestamptz(3) not null,
        updated_at timestamptz(3) not null,
        constraint invoices_number_unique unique (workspace_id, number),
        constraint invoices_series_sequence_unique unique (workspace_id, number_format, number_period, number_sequence),
        constraint invoices_public_url_token_unique unique (public_url_token),
        constraint invoices_numbered_once_finalized check (
          (status = 'draft') = (number is null)
          and (number is null) = (number_sequence is null)
          and (number is null) = (finalized_at is null)
        )
      )`);
    this.addSql('create index invoices_newest_first on billing.invoices (workspace_id, created_at desc, id desc)');
    this.addSql('create index invoices_of_customer_newest_first on billing.invoices (workspace_id, customer_id, created_at desc, id desc)');
    this.addSql(`create index invoices_number_trgm on billing.invoices using gin (number ${trgm})`);
    this.addSql(`create index invoices_customer_name_trgm on billing.invoices using gin (customer_name ${trgm})`);
    this.addSql(`create index invoices_notes_trgm on billing.invoices using gin (notes ${trgm})`);
    // The overdue sweep reads only open invoices that have not had their overdue event yet.
    this.addSql(`create index invoices_awaiting_overdue on billing.invoices (due_date) where status = 'open' and overdue_event_at is null and due_date is not null`);

    this.addSql(`
      create table billing.invoice_lines (
        id uuid primary key,
        invoice_id uuid not null references billing.invoices (id) on delete cascade deferrable initially deferred,
        workspace_id uuid not null,
        position smallint not null,
        price_id uuid,
        product_id uuid,
        description text not null,
        quantity bigint not null check (quantity between 1 and ${MAX_AMOUNT}),
        ${amount('unit_amount')},
        discount_amount_off bigint check (discount_amount_off between 0 and ${MAX_AMOUNT}),
        discount_percent_off numeric(5, 2) check (discount_percent_off between 0 and 100),
        ${amount('discount_amount')},
        tax_rate numeric(7, 4) not null check (tax_rate between 0 and 100),
        ${amount('amount')},
        ${amount('tax')},
        constraint invoice_lines_position_unique unique (invoice_id, position),
        constraint invoice_lines_one_discount check (discount_amount_off is null or discount_percent_off is null)
      )`);

    this.addSql(`
      create table billing.number_series (
        workspace_id uuid not null,
        format text not null,
        period text not null,
        last_value bigint not null check (last_value > 0),
        last_chain_sha256 char(64) not null,
        primary key (workspace_id, format, period)
      )`);

    this.addSql(`
      create table billing.invoice_timeline (
        id uuid primary key,
        invoice_id uuid not null references billing.invoices (id) on delete cascade deferrable initially deferred,
        workspace_id uuid not null,
        type text not null check (type in ('created', 'updated', 'finalized', 'paid', 'voided', 'overdue')),
        occurred_at timestamptz(3) not null,
        key_id text,
        request_id text,
        details jsonb not null
      )`);
    this.addSql('create index invoice_timeline_oldest_first on billing.invoice_timeline (invoice_id, occurred_at, id)');

    for (const sql of outboxTableSql('billing')) this.addSql(sql);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists billing.outbox');
    this.addSql('drop table if exists billing.invoice_timeline');
    this.addSql('drop table if exists billing.number_series');
    this.addSql('drop table if exists billing.invoice_lines');
    this.addSql('drop table if exists billing.invoices');
    this.addSql('drop table if exists billing.accounts');
  }
}
