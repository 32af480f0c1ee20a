import { Migration } from '@mikro-orm/migrations';

/**
 * What EN 16931 e-invoices need (issue #12): the seller's contact, electronic address and payment
 * account and the PDF format on the account; buyer reference, purchase order and delivery date on
 * the invoice; unit code, VAT category and exemption reason on each line.
 *
 * Existing lines get the defaults a line sent without them gets (unit C62, category S when the
 * rate is above 0, else Z). Invoices finalized so far are marked `snapshot_version` 1: their hashes
 * were taken over the document of that version, which verification keeps rebuilding for them,
 * and their per-line-rounded taxes stay as they were issued. Finalization from now on writes 2.
 */
export class Migration20261210100000EinvoiceFields extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table billing.accounts
        add column phone text,
        add column contact_name text,
        add column electronic_address text,
        add column electronic_address_scheme text,
        add column payment_account jsonb,
        add column pdf_format text not null default 'standard' check (pdf_format in ('standard', 'facturx'))`);
    this.addSql(`
      alter table billing.invoices
        add column buyer_reference text,
        add column purchase_order text,
        add column delivery_date date,
        add column snapshot_version smallint check (snapshot_version in (1, 2))`);
    this.addSql('update billing.invoices set snapshot_version = 1 where snapshot_sha256 is not null');
    this.addSql(`
      alter table billing.invoice_lines
        add column unit_code text not null default 'C62' check (unit_code ~ '^[A-Z0-9]{2,3}$'),
        add column tax_category text check (tax_category in ('S', 'Z', 'E', 'AE', 'K', 'G', 'O')),
        add column tax_exemption_reason text`);
    this.addSql(`update billing.invoice_lines set tax_category = case when tax_rate > 0 then 'S' else 'Z' end`);
    this.addSql('alter table billing.invoice_lines alter column tax_category set not null');
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoice_lines drop column unit_code, drop column tax_category, drop column tax_exemption_reason');
    this.addSql('alter table billing.invoices drop column buyer_reference, drop column purchase_order, drop column delivery_date, drop column snapshot_version');
    this.addSql(
      'alter table billing.accounts drop column phone, drop column contact_name, drop column electronic_address, drop column electronic_address_scheme, drop column payment_account, drop column pdf_format',
    );
  }
}
