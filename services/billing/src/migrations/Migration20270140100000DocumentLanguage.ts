import { Migration } from '@mikro-orm/migrations';

/**
 * Documents in the customer's language (decisions.md, "Language and legal contents of documents"):
 * the account's default locale and the e-invoice profile finalize insists on; the invoice's
 * locale, frozen at finalization, and its service period (BG-14). Invoices finalized from now on
 * are hashed in document version 3, which holds both.
 */
export class Migration20270140100000DocumentLanguage extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table billing.accounts
        add column locale text not null default 'en',
        add column einvoice_required text not null default 'none' check (einvoice_required in ('none', 'en16931', 'xrechnung'))`);
    this.addSql(`alter table billing.invoices
        add column locale text,
        add column service_period_start date,
        add column service_period_end date,
        add constraint invoices_service_period_ordered check (service_period_start <= service_period_end),
        add constraint invoices_service_period_whole check ((service_period_start is null) = (service_period_end is null)),
        drop constraint invoices_snapshot_version_check,
        add constraint invoices_snapshot_version_check check (snapshot_version in (1, 2, 3))`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table billing.invoices drop column locale, drop column service_period_start, drop column service_period_end,
        drop constraint invoices_snapshot_version_check,
        add constraint invoices_snapshot_version_check check (snapshot_version in (1, 2))`);
    this.addSql('alter table billing.accounts drop column locale, drop column einvoice_required');
  }
}
