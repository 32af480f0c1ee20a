import { addMetadataColumnSql, createBtreeGin, metadataIndexSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/** `metadata` on webhook endpoints (decisions.md "metadata"): `{}` on every existing endpoint, and the index of the `metadata[key]=value` list filter. */
export class Migration20270161200000EndpointMetadata extends Migration {
  override async up(): Promise<void> {
    await createBtreeGin((sql) => this.execute(sql));
    this.addSql(addMetadataColumnSql('notifications', 'webhook_endpoints'));
    this.addSql(metadataIndexSql('notifications', 'webhook_endpoints'));
  }

  override async down(): Promise<void> {
    this.addSql('alter table notifications.webhook_endpoints drop column metadata');
  }
}
