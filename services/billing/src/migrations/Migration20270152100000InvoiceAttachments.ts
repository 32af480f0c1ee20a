import { Migration } from '@mikro-orm/migrations';

/**
 * Supporting documents (BG-24; decisions.md, "EN 16931 business terms beyond the first set"): the
 * files, in a table of their own that only the upload and the documents service's read of one
 * file touch; and on the invoice their listing (metadata, never the bytes), so every read of an
 * invoice, one or a page, gets it with the row and a finalized invoice's listing is frozen with it.
 */
export class Migration20270152100000InvoiceAttachments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table billing.invoices add column attachments jsonb not null default '[]'`);
    this.addSql(`
      create table billing.invoice_attachments (
        id uuid primary key,
        invoice_id uuid not null references billing.invoices (id) on delete cascade deferrable initially deferred,
        workspace_id uuid not null,
        position smallint not null check (position >= 1),
        filename text not null,
        content_type text not null,
        size integer not null check (size between 1 and 10000000),
        sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
        description text,
        content bytea not null check (octet_length(content) = size),
        created_at timestamptz(3) not null,
        unique (invoice_id, position)
      )`);
    // PDFs, images and spreadsheets come compressed: PostgreSQL need not try again.
    this.addSql('alter table billing.invoice_attachments alter column content set storage external');
  }

  override async down(): Promise<void> {
    this.addSql('drop table billing.invoice_attachments');
    this.addSql('alter table billing.invoices drop column attachments');
  }
}
