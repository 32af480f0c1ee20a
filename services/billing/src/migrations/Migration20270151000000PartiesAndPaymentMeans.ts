import { Migration } from '@mikro-orm/migrations';

/**
 * Parties and payment means (decisions.md, "EN 16931 business terms beyond the first set"): the
 * seller's trading name (BT-28), legal registration identifier (BT-30), additional legal
 * information (BT-33), tax representative (BG-11) and the list of payment means (BG-16) on the
 * account; the invoice's own payment means, payee (BG-10) and preceding invoice (BG-3).
 *
 * `payment_account` becomes the first credit transfer of the account's `payment_means`: each
 * account's payment account moves into the list as its one entry, so it reads as before and
 * invoices finalized from now on take it as before. Invoices finalized so far froze theirs in the
 * business snapshot; it becomes their frozen `payment_means` too, so the e-invoices of those
 * invoices keep their payment instructions. Their hashed documents (versions 1 to 3) hold no
 * `payment_means` and stay as they were.
 */
const creditTransferOf = (account: string) => `jsonb_build_array(jsonb_build_object(
  'type', 'credit_transfer', 'information', null, 'iban', ${account}->'iban', 'bic', ${account}->'bic', 'account_name', ${account}->'name',
  'mandate_reference', null, 'creditor_id', null, 'debited_iban', null, 'card_last4', null, 'card_holder', null))`;

export class Migration20270151000000PartiesAndPaymentMeans extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table billing.accounts
        add column trading_name text,
        add column registration_id text,
        add column registration_id_scheme text,
        add column legal_info text,
        add column tax_representative jsonb,
        add column payment_means jsonb not null default '[]'`);
    this.addSql(`update billing.accounts set payment_means = ${creditTransferOf('payment_account')} where jsonb_typeof(payment_account) = 'object'`);
    this.addSql('alter table billing.accounts drop column payment_account');
    this.addSql(`
      alter table billing.invoices
        add column payment_means jsonb not null default '[]',
        add column payee jsonb,
        add column preceding_invoice jsonb`);
    this.addSql(`
      update billing.invoices set payment_means = ${creditTransferOf("business_snapshot->'payment_account'")}
      where status <> 'draft' and jsonb_typeof(business_snapshot->'payment_account') = 'object'`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table billing.invoices drop column payment_means, drop column payee, drop column preceding_invoice');
    this.addSql('alter table billing.accounts add column payment_account jsonb');
    this.addSql(`
      update billing.accounts a set payment_account = (
        select jsonb_build_object('iban', m->'iban', 'bic', m->'bic', 'name', m->'account_name')
        from jsonb_array_elements(a.payment_means) with ordinality as e(m, position)
        where m->>'type' = 'credit_transfer' order by position limit 1)`);
    this.addSql(`
      alter table billing.accounts
        drop column trading_name, drop column registration_id, drop column registration_id_scheme,
        drop column legal_info, drop column tax_representative, drop column payment_means`);
  }
}
