import { Migration } from '@mikro-orm/migrations';

/**
 * The id of the API request an event came from (the envelope's correlation_id), so a webhook
 * delivery's log line can be traced back to that request. Events stored before it have none.
 */
export class Migration20261201000000EventCorrelation extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table notifications.events add column correlation_id text');
  }

  override async down(): Promise<void> {
    this.addSql('alter table notifications.events drop column correlation_id');
  }
}
