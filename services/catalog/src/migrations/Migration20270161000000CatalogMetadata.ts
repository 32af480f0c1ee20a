import { addMetadataColumnSql, createBtreeGin, metadataIndexSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/**
 * `metadata` on customers, products and prices (decisions.md "metadata"): `{}` on every existing
 * row, and the index of the `metadata[key]=value` list filter.
 */
export class Migration20270161000000CatalogMetadata extends Migration {
  override async up(): Promise<void> {
    await createBtreeGin((sql) => this.execute(sql));
    for (const table of ['customers', 'products', 'prices']) {
      this.addSql(addMetadataColumnSql('catalog', table));
      this.addSql(metadataIndexSql('catalog', table));
    }
  }

  override async down(): Promise<void> {
    for (const table of ['customers', 'products', 'prices']) this.addSql(`alter table catalog.${table} drop column metadata`);
  }
}
