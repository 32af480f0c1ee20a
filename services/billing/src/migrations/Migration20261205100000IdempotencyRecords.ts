import { dropKeyedWritesTableSql, keyedWritesTableSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/**
 * The outcome of each write made under an Idempotency-Key, recorded in the write's own
 * transaction: a repeat that reaches billing after the gateway lost the answer replays it.
 */
export class Migration20261205100000IdempotencyRecords extends Migration {
  override async up(): Promise<void> {
    for (const sql of keyedWritesTableSql('billing')) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of dropKeyedWritesTableSql('billing')) this.addSql(sql);
  }
}
