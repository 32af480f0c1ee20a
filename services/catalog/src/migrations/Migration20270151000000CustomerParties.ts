import { Migration } from '@mikro-orm/migrations';

/**
 * The buyer's identifier (BT-46, with its ISO 6523 ICD scheme) and contact point (BT-56)
 * (decisions.md, "EN 16931 business terms beyond the first set"). Optional, so existing customers
 * simply have none.
 */
export class Migration20270151000000CustomerParties extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table catalog.customers
        add column identifier text,
        add column identifier_scheme text,
        add column contact_name text`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table catalog.customers drop column identifier, drop column identifier_scheme, drop column contact_name');
  }
}
