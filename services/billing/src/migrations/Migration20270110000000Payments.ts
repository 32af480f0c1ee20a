import { Migration } from '@mikro-orm/migrations';

const MAX_AMOUNT = '9007199254740991';

/**
 * Payments (several per invoice), the invoice's ISO 11649 remittance reference, and imported bank
 * statements with their entries (decisions.md, "Payments and bank statements").
 *
 * A credit entry claims its duplicate key (`dedup_key`: the account and the bank's reference, or
 * without one the date, amount and remittance information) through a unique index: of two imports
 * of the same statement, running at once or one after the other, one claims each key and the other
 * waits for it, then finds it taken and records the entry as a duplicate. So no transfer pays an
 * invoice twice. Duplicates and debits claim no key (null).
 */
export class Migration20270110000000Payments extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table billing.invoices add column remittance_reference text');
    this.addSql(`alter table billing.invoices add constraint invoices_paid_at_most_due check (status <> 'open' or amount_paid <= amount_due)`);

    this.addSql(`
      create table billing.bank_statements (
        id uuid primary key,
        workspace_id uuid not null,
        account_iban text,
        from_date date,
        to_date date,
        matched_count integer not null,
        unmatched_count integer not null,
        created_at timestamptz(3) not null
      )`);
    this.addSql('create index bank_statements_newest_first on billing.bank_statements (workspace_id, created_at desc, id desc)');

    this.addSql(`
      create table billing.bank_statement_entries (
        id uuid primary key,
        statement_id uuid not null references billing.bank_statements (id) on delete cascade deferrable initially deferred,
        workspace_id uuid not null,
        position integer not null,
        booking_date date,
        amount bigint not null check (amount between 0 and ${MAX_AMOUNT}),
        currency char(3) not null,
        credit_debit text not null check (credit_debit in ('credit', 'debit')),
        remittance_information text,
        counterparty_name text,
        bank_reference text,
        status text not null check (status in ('matched', 'unmatched', 'duplicate', 'ignored')),
        invoice_id uuid,
        payment_id uuid,
        dedup_key text,
        constraint bank_statement_entries_claims_when_counted check ((dedup_key is not null) = (status in ('matched', 'unmatched')))
      )`);
    this.addSql('create index bank_statement_entries_of_statement on billing.bank_statement_entries (statement_id, position)');
    this.addSql('create unique index bank_statement_entries_dedup on billing.bank_statement_entries (workspace_id, dedup_key)');

    this.addSql(`
      create table billing.payments (
        id uuid primary key,
        workspace_id uuid not null,
        invoice_id uuid not null references billing.invoices (id) deferrable initially deferred,
        amount bigint not null check (amount between 1 and ${MAX_AMOUNT}),
        currency char(3) not null,
        paid_at timestamptz(3) not null,
        payment_reference text,
        method text not null check (method in ('bank_transfer', 'card', 'cash', 'check', 'direct_debit', 'other')),
        bank_statement_entry_id uuid unique references billing.bank_statement_entries (id) deferrable initially deferred,
        created_at timestamptz(3) not null
      )`);
    this.addSql('create index payments_of_invoice on billing.payments (invoice_id, created_at, id)');
  }

  override async down(): Promise<void> {
    this.addSql('drop table billing.payments');
    this.addSql('drop table billing.bank_statement_entries');
    this.addSql('drop table billing.bank_statements');
    this.addSql('alter table billing.invoices drop constraint invoices_paid_at_most_due');
    this.addSql('alter table billing.invoices drop column remittance_reference');
  }
}
