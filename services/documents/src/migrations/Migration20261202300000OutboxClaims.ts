import { dropOutboxClaimColumnsSql, outboxClaimColumnsSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's claim lease and trace context: the relay claims rows in one autocommit statement
 * instead of holding a transaction across its publishes, and each event joins its request's trace.
 */
export class Migration20261202300000OutboxClaims extends Migration {
  override async up(): Promise<void> {
    for (const sql of outboxClaimColumnsSql('documents')) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of dropOutboxClaimColumnsSql('documents')) this.addSql(sql);
  }
}
