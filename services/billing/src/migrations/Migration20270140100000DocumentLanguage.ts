import { Migration } from '@mikro-orm/migrations';

/**
 * Documents in the customer's language (decisions.md, "Language and legal contents of documents"):
 * the account's default locale and the e-invoice profile finalize insists on; the invoice's
 * locale, frozen at finalization, and its service period (BG-14).
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
        add constraint invoices_service_period_whole check ((service_period_start is null) = (service_period_end is null))`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoices drop column locale, drop column service_period_start, drop column service_period_end');
    this.addSql('alter table billing.accounts drop column locale, drop column einvoice_required');
  }
}
