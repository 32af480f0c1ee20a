import { createBtreeGin, metadataIndexSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/** The index of the `metadata[key]=value` list filter (decisions.md "metadata"); subscriptions have had the column from the start. */
export class Migration20270161300000SubscriptionMetadataFilter extends Migration {
  override async up(): Promise<void> {
    await createBtreeGin((sql) => this.execute(sql));
    this.addSql(metadataIndexSql('subscriptions', 'subscriptions'));
  }

  override async down(): Promise<void> {
    this.addSql('drop index subscriptions.subscriptions_metadata');
  }
}
