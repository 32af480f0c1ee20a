import { blankTextToNullSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/**
 * An optional text field without a value is null, never "": the API now turns an empty or blank
 * string into null on every write, and this clears the ones stored before it did.
 */
export class Migration20261203000000BlankTextToNull extends Migration {
  override async up(): Promise<void> {
    const statements = [
      ...blankTextToNullSql('catalog.customers', { columns: ['email', 'phone', 'tax_id'], objectColumns: ['address'] }),
      ...blankTextToNullSql('catalog.products', { columns: ['description'] }),
      ...blankTextToNullSql('catalog.prices', { columns: ['nickname'] }),
    ];
    for (const sql of statements) this.addSql(sql);
  }

  // Nothing to undo: which values were "" rather than null is not kept, and null reads the same.
  override async down(): Promise<void> {}
}
