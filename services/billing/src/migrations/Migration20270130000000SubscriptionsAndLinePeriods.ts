import { Migration } from '@mikro-orm/migrations';

/**
 * Invoices made by a subscription name it (`subscription`, the subscriptions service's id, never
 * a foreign key: that service owns its own schema), and every line may carry its billing period
 * (EN 16931 BG-26), both days included.
 */
export class Migration20270130000000SubscriptionsAndLinePeriods extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table billing.invoices add column subscription_id uuid null');
    this.addSql('alter table billing.invoice_lines add column period_start date null, add column period_end date null');
    this.addSql(
      'alter table billing.invoice_lines add constraint invoice_lines_period check ((period_start is null) = (period_end is null) and (period_start is null or period_start <= period_end))',
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoice_lines drop constraint invoice_lines_period');
    this.addSql('alter table billing.invoice_lines drop column period_start, drop column period_end');
    this.addSql('alter table billing.invoices drop column subscription_id');
  }
}
