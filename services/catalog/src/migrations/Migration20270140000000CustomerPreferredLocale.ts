import { Migration } from '@mikro-orm/migrations';

/** The language and formats of a customer's documents (decisions.md, "Language and legal contents of documents"). */
export class Migration20270140000000CustomerPreferredLocale extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table catalog.customers add column preferred_locale text');
  }

  override async down(): Promise<void> {
    this.addSql('alter table catalog.customers drop column preferred_locale');
  }
}
