import { Migration } from '@mikro-orm/migrations';

/**
 * What EN 16931 e-invoices need of a buyer (issue #12): where its e-invoices go (BT-49, with an
 * EAS scheme; null means its email) and its default buyer reference (BT-10, the Leitweg-ID of
 * German public buyers). Optional, so existing customers simply have none.
 */
export class Migration20261210000000CustomerEinvoiceFields extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table catalog.customers
        add column electronic_address text,
        add column electronic_address_scheme text,
        add column buyer_reference text`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table catalog.customers drop column electronic_address, drop column electronic_address_scheme, drop column buyer_reference');
  }
}
