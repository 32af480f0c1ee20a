import { Migration } from '@mikro-orm/migrations';

/**
 * One invoice per subscription and period, kept by billing itself rather than by a keyed-write
 * record that is purged after IDEMPOTENCY_TTL_HOURS (issue 24): invoices made by a subscription
 * remember the first day of the period they bill, and a partial unique index allows one invoice per
 * (workspace, subscription, period start).
 *
 * Existing rows are filled from their lines' periods where that is exact: the subscriptions service
 * gives every line of a period's invoice that period, so an invoice whose lines all carry a period
 * and all start on the same day bills the period starting then. Invoices whose lines disagree or
 * lack a period (a draft whose items were replaced by hand) stay null, and so outside the rule. Of
 * invoices already made twice for one period (the failure this closes), the earliest (created_at,
 * then id) takes the period and the others stay null, so the index can be built.
 */
export class Migration20270175000000OneInvoicePerSubscriptionPeriod extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table billing.invoices add column subscription_period_start date null');
    this.addSql(`
      update billing.invoices i
         set subscription_period_start = first.period_start
        from (
          select distinct on (i.workspace_id, i.subscription_id, l.period_start) i.id, l.period_start
            from billing.invoices i
            join (
              select invoice_id, min(period_start) as period_start
                from billing.invoice_lines
               group by invoice_id
              having count(*) = count(period_start) and min(period_start) = max(period_start)
            ) l on l.invoice_id = i.id
           where i.subscription_id is not null
           order by i.workspace_id, i.subscription_id, l.period_start, i.created_at, i.id
        ) first
       where i.id = first.id`);
    this.addSql(
      'create unique index invoices_one_per_subscription_period on billing.invoices (workspace_id, subscription_id, subscription_period_start) where subscription_id is not null',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop index billing.invoices_one_per_subscription_period');
    this.addSql('alter table billing.invoices drop column subscription_period_start');
  }
}
