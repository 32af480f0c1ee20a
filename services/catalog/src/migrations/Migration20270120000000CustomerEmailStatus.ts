import { Migration } from '@mikro-orm/migrations';

/**
 * `email_status` (issue #22): `bounced` once billing reports that a mail server refused the
 * customer's address for good; a change of `email` makes it `ok` again. The index finds the
 * customers of a workspace with a refused address (compared case-insensitively, as mail domains are).
 * Also the record of events consumed, so a redelivered one changes nothing twice.
 */
export class Migration20270120000000CustomerEmailStatus extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table catalog.customers add column email_status text not null default 'ok' check (email_status in ('ok', 'bounced'))`);
    this.addSql('create index customers_by_email on catalog.customers (workspace_id, lower(email)) where email is not null');
  }

  override async down(): Promise<void> {
    this.addSql('drop index catalog.customers_by_email');
    this.addSql('alter table catalog.customers drop column email_status');
  }
}
