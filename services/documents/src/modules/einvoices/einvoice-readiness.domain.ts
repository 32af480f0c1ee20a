import { missingEinvoiceFields, type Invoice } from '@invoicing/contracts';
import type { FieldIssue } from '@invoicing/service-kit/app-error';
import type { EInvoiceProfile } from './einvoice.domain.ts';

/**
 * Every field a finalized invoice lacks for the profile, each with the rule that asks for it;
 * empty when the document can be written. Billing's own check (`missingEinvoiceFields`, the one
 * behind the invoice's `einvoice` readiness, payment means rules included), plus the rule it
 * leaves to the export: an amount due needs a due date or payment terms, and the API lets both be empty.
 */
export const einvoiceProblems = (invoice: Invoice, profile: EInvoiceProfile): FieldIssue[] => {
  const problems: FieldIssue[] = missingEinvoiceFields(invoice, profile).map(({ path, message }) => ({ path, message }));
  if (invoice.due_date === null && (invoice.footer ?? '').trim() === '' && invoice.total - invoice.prepaid_amount > 0) {
    problems.push({ path: 'due_date', message: 'BR-CO-25: an amount due needs a payment due date (BT-9) or payment terms (BT-20, the footer)' });
  }
  return problems;
};
