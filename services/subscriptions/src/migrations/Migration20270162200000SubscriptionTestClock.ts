import { Migration } from '@mikro-orm/migrations';

/**
 * `test_clock_id` (decisions.md "Test clocks"): a subscription of a customer on a test clock moves
 * with the clock's advances; the real-time scheduler's claim leaves it alone.
 */
export class Migration20270162200000SubscriptionTestClock extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table subscriptions.subscriptions add column test_clock_id uuid');
    this.addSql('create index subscriptions_of_test_clock on subscriptions.subscriptions (test_clock_id, next_action_at) where test_clock_id is not null');
  }

  override async down(): Promise<void> {
    this.addSql('alter table subscriptions.subscriptions drop column test_clock_id');
  }
}
