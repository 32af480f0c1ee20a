import { Migration } from '@mikro-orm/migrations';

/**
 * Stored invoice PDFs and the event outbox. One PDF per invoice, enforced by its primary key:
 * the finalization event and a first download may render at the same time, and only one of them
 * stores (both renders are byte-identical anyway).
 */
export class Migration20261123300000CreateDocuments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table documents.invoice_pdfs (
        invoice_id uuid primary key,
        workspace_id uuid not null,
        number text not null,
        template_version text not null,
        sha256 char(64) not null check (sha256 ~ '^[0-9a-f]{64}$'),
        byte_size integer not null check (byte_size > 0),
        content bytea not null,
        rendered_at timestamptz(3) not null
      )`);
    this.addSql(`
      create table documents.outbox (
        id uuid primary key,
        subject text not null,
        envelope jsonb not null,
        created_at timestamptz not null default clock_timestamp(),
        published_at timestamptz
      )`);
    this.addSql('create index outbox_unpublished on documents.outbox (created_at, id) where published_at is null');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists documents.outbox');
    this.addSql('drop table if exists documents.invoice_pdfs');
  }
}
