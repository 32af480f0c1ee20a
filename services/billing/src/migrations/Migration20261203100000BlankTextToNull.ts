import { blankTextToNullSql } from '@invoicing/service-kit';
import { Migration } from '@mikro-orm/migrations';

/**
 * An optional text field without a value is null, never "": the API now turns an empty or blank
 * string into null on every write, and this clears the ones the account stored before it did.
 * Invoice snapshots stay as they were frozen.
 */
export class Migration20261203100000BlankTextToNull extends Migration {
  override async up(): Promise<void> {
    const statements = blankTextToNullSql('billing.accounts', {
      columns: ['business_name', 'email', 'tax_id', 'payment_instructions', 'brand_color'],
      objectColumns: ['address'],
    });
    for (const sql of statements) this.addSql(sql);
  }

  // Nothing to undo: which values were "" rather than null is not kept, and null reads the same.
  override async down(): Promise<void> {}
}
