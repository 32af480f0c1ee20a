import { addMetadataColumnSql, createBtreeGin, metadataIndexSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/** `metadata` on invoices (decisions.md "metadata"): `{}` on every existing invoice, and the index of the `metadata[key]=value` list filter. */
export class Migration20270161100000InvoiceMetadata extends Migration {
  override async up(): Promise<void> {
    await createBtreeGin((sql) => this.execute(sql));
    this.addSql(addMetadataColumnSql('billing', 'invoices'));
    this.addSql(metadataIndexSql('billing', 'invoices'));
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoices drop column metadata');
  }
}
