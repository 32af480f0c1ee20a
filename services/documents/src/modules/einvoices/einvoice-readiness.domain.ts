import { missingEinvoiceFields, type Invoice } from '@invoicing/contracts';
import type { FieldIssue } from '@invoicing/service-kit/app-error';
import type { EInvoiceProfile } from './einvoice.domain.ts';

/** What XRechnung asks of the invoice's payment means (BG-18, BG-19) beyond what the API requires of each type. */
const xrechnungPaymentMeansProblems = (invoice: Invoice): FieldIssue[] =>
  invoice.payment_means.flatMap((means, index): FieldIssue[] => {
    const path = `payment_means.${index}`;
    if (means.type === 'sepa_direct_debit') {
      return [
        ...(means.creditor_id ? [] : [{ path: `${path}.creditor_id`, message: 'BR-DE-30: XRechnung needs the seller’s SEPA creditor identifier (BT-90) with a direct debit' }]),
        ...(means.debited_iban ? [] : [{ path: `${path}.debited_iban`, message: 'BR-DE-31: XRechnung needs the debited account (BT-91) with a direct debit' }]),
      ];
    }
    if (means.type === 'card' && !means.card_last4) return [{ path: `${path}.card_last4`, message: 'BR-DE-24: XRechnung needs the card’s last digits (BG-18, BT-87) with a card payment' }];
    return [];
  });

/**
 * Every field a finalized invoice lacks for the profile, each with the rule that asks for it;
 * empty when the document can be written. Billing's own check (`missingEinvoiceFields`, the one
 * behind the invoice's `einvoice` readiness), plus the rules it leaves to the export: an amount
 * due needs a due date or payment terms, and the API lets both be empty; XRechnung's demands on a
 * direct debit or card payment.
 */
export const einvoiceProblems = (invoice: Invoice, profile: EInvoiceProfile): FieldIssue[] => {
  const problems: FieldIssue[] = missingEinvoiceFields(invoice, profile).map(({ path, message }) => ({ path, message }));
  if (invoice.due_date === null && (invoice.footer ?? '').trim() === '' && invoice.total - invoice.prepaid_amount > 0) {
    problems.push({ path: 'due_date', message: 'BR-CO-25: an amount due needs a payment due date (BT-9) or payment terms (BT-20, the footer)' });
  }
  if (profile === 'xrechnung') problems.push(...xrechnungPaymentMeansProblems(invoice));
  return problems;
};
