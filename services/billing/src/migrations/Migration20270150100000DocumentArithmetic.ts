import { Migration } from '@mikro-orm/migrations';

const MAX_AMOUNT = '9007199254740991';

/**
 * EN 16931 business terms beyond the first set, their arithmetic (decisions.md): document-level
 * allowances and charges (BG-20, BG-21) as JSONB lists on the invoice (a value of the invoice,
 * always replaced whole, never queried alone) with their totals, the prepaid amount (BT-113), the
 * tax currency (BT-6) and its rate; on lines the exact decimal quantity, unit amount and price
 * base quantity (BT-129, BT-146, BT-149; wide enough for the integer forms up to 2^53 − 1 too)
 * beside the integer columns (which hold them rounded half up), and the item terms (BT-121, BT-155, BT-157, BT-127). A decimal quantity may round to 0.
 * Invoices finalized from now on are hashed in document version 4.
 */
export class Migration20270150100000DocumentArithmetic extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table billing.invoices
        add column allowances jsonb not null default '[]',
        add column charges jsonb not null default '[]',
        add column allowance_total bigint not null default 0 check (allowance_total between 0 and ${MAX_AMOUNT}),
        add column charge_total bigint not null default 0 check (charge_total between 0 and ${MAX_AMOUNT}),
        add column prepaid_amount bigint not null default 0 check (prepaid_amount between 0 and ${MAX_AMOUNT}),
        add column tax_currency char(3) check (tax_currency ~ '^[A-Z]{3}$'),
        add column tax_exchange_rate numeric(25, 10) check (tax_exchange_rate > 0),
        add constraint invoices_tax_currency_with_rate check ((tax_currency is null) = (tax_exchange_rate is null)),
        add constraint invoices_prepaid_at_most_total check (prepaid_amount <= total),
        drop constraint invoices_snapshot_version_check,
        add constraint invoices_snapshot_version_check check (snapshot_version in (1, 2, 3, 4))`);
    this.addSql(`alter table billing.invoice_lines
        add column quantity_decimal numeric(20, 4),
        add column unit_amount_decimal numeric(22, 6),
        add column price_base_quantity numeric(19, 4) not null default 1 check (price_base_quantity > 0),
        add column tax_exemption_reason_code text,
        add column sku text,
        add column standard_id text,
        add column standard_id_scheme text,
        add column note text,
        drop constraint invoice_lines_quantity_check,
        add constraint invoice_lines_quantity_check check (quantity between 0 and ${MAX_AMOUNT})`);
    this.addSql('update billing.invoice_lines set quantity_decimal = quantity, unit_amount_decimal = unit_amount');
    this.addSql(`alter table billing.invoice_lines
        alter column quantity_decimal set not null,
        alter column unit_amount_decimal set not null,
        add constraint invoice_lines_quantity_decimal_positive check (quantity_decimal > 0),
        add constraint invoice_lines_unit_amount_decimal_check check (unit_amount_decimal >= 0)`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table billing.invoice_lines
        drop column quantity_decimal, drop column unit_amount_decimal, drop column price_base_quantity,
        drop column tax_exemption_reason_code, drop column sku, drop column standard_id, drop column standard_id_scheme, drop column note,
        drop constraint invoice_lines_quantity_check,
        add constraint invoice_lines_quantity_check check (quantity between 1 and ${MAX_AMOUNT})`);
    this.addSql(`alter table billing.invoices
        drop column allowances, drop column charges, drop column allowance_total, drop column charge_total,
        drop column prepaid_amount, drop column tax_currency, drop column tax_exchange_rate,
        drop constraint invoices_snapshot_version_check,
        add constraint invoices_snapshot_version_check check (snapshot_version in (1, 2, 3))`);
  }
}
