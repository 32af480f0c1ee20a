import { Migration } from '@mikro-orm/migrations';

/**
 * Stored e-invoice exports: the UBL and CII XML in each profile and the Factur-X PDF of a
 * finalized invoice, written once like its PDF. One row per invoice and kind (the primary key),
 * so the finalization event and a first download that race store one document between them.
 */
export class Migration20261210300000InvoiceExports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table documents.invoice_exports (
        invoice_id uuid not null,
        kind text not null check (kind in ('ubl-en16931', 'ubl-xrechnung', 'cii-en16931', 'cii-xrechnung', 'facturx')),
        workspace_id uuid not null,
        number text not null,
        generator_version text not null,
        sha256 char(64) not null check (sha256 ~ '^[0-9a-f]{64}$'),
        byte_size integer not null check (byte_size > 0),
        content bytea not null,
        rendered_at timestamptz(3) not null,
        primary key (invoice_id, kind)
      )`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists documents.invoice_exports');
  }
}
