import { Migration } from '@mikro-orm/migrations';

/**
 * Test clocks (decisions.md "Test mode, test clocks"): the clocks, and on invoices the clock whose
 * time they follow, copied from their customer when they are made.
 */
export class Migration20270162100000TestClocks extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table billing.test_clocks (
        id uuid primary key,
        workspace_id uuid not null,
        name text,
        frozen_time timestamptz(3) not null,
        status text not null check (status in ('ready', 'advancing')),
        advance_to timestamptz(3),
        claimed_until timestamptz(3),
        created timestamptz(3) not null,
        check ((status = 'advancing') = (advance_to is not null))
      )`);
    this.addSql('create index test_clocks_newest_first on billing.test_clocks (workspace_id, created desc, id desc)');
    this.addSql(`create index test_clocks_advancing on billing.test_clocks (created) where status = 'advancing'`);
    this.addSql('alter table billing.invoices add column test_clock_id uuid');
    this.addSql('create index invoices_of_test_clock on billing.invoices (test_clock_id) where test_clock_id is not null');
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoices drop column test_clock_id');
    this.addSql('drop table billing.test_clocks');
  }
}
