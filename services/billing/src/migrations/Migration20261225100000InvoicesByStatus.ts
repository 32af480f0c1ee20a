import { Migration } from '@mikro-orm/migrations';

/**
 * The invoice list filtered by status, keyset-paged: with an index that leads with the status and
 * ends in the list's order, a page 50,000 rows deep is bounded by the index as the first page is,
 * however the statuses are spread over time (recent drafts and open invoices, old paid ones), instead
 * of walking the workspace's newest-first index past every invoice of another status.
 */
export class Migration20261225100000InvoicesByStatus extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index invoices_by_status_newest_first on billing.invoices (workspace_id, status, created_at desc, id desc)');
  }

  override async down(): Promise<void> {
    this.addSql('drop index billing.invoices_by_status_newest_first');
  }
}
