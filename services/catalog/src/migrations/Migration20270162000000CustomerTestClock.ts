import { Migration } from '@mikro-orm/migrations';

/** `test_clock` (decisions.md "Test clocks"): the billing test clock a test customer lives on; its deletion deletes them. */
export class Migration20270162000000CustomerTestClock extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table catalog.customers add column test_clock_id uuid');
    this.addSql('create index customers_of_test_clock on catalog.customers (workspace_id, test_clock_id) where test_clock_id is not null');
  }

  override async down(): Promise<void> {
    this.addSql('alter table catalog.customers drop column test_clock_id');
  }
}
