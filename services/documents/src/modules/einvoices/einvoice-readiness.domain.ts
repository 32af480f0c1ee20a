import { missingEinvoiceFields, type Invoice } from '@invoicing/contracts';
import type { FieldIssue } from '@invoicing/service-kit/app-error';
import type { EInvoiceProfile } from './einvoice.domain.ts';

/**
 * Every field a finalized invoice lacks for the profile, each with the rule that asks for it;
 * empty when the document can be written. Billing's own check (`missingEinvoiceFields`, the one
 * behind the invoice's `einvoice` readiness and the finalize guard), as the export's 400 `errors`.
 */
export const einvoiceProblems = (invoice: Invoice, profile: EInvoiceProfile): FieldIssue[] =>
  missingEinvoiceFields(invoice, profile).map(({ path, message }) => ({ path, message }));
