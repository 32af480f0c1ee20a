import type { CreateInvoiceBody, Payee, PrecedingInvoice, UpdateInvoiceBody } from '@invoicing/contracts';
import { paymentMeansOf } from '../account/payment-means.domain.ts';
import type { InvoiceRow } from './invoice.entity.ts';

/**
 * A draft's payment means (BG-16), payee (BG-10) and preceding invoice (BG-3) as sent (decisions.md,
 * "EN 16931 business terms beyond the first set"). The contract has checked each (an invoice's
 * payment means share one type); finalization freezes them with the draft, and fills empty
 * payment means from the account's.
 */
type PartyColumns = Pick<InvoiceRow, 'paymentMeans' | 'payee' | 'precedingInvoice'>;
type PartiesSent = Pick<UpdateInvoiceBody, 'payment_means' | 'payee' | 'preceding_invoice'>;

const payeeOf = (sent: NonNullable<PartiesSent['payee']>): Payee => ({
  name: sent.name,
  identifier: sent.identifier ?? null,
  legal_registration_id: sent.legal_registration_id ?? null,
});

const precedingInvoiceOf = (sent: NonNullable<PartiesSent['preceding_invoice']>): PrecedingInvoice => ({ number: sent.number, issue_date: sent.issue_date ?? null });

/** The columns a PATCH sets; omitted fields keep their values, null removes the payee or the preceding invoice, [] the invoice's own payment means. */
export const partyChanges = (patch: PartiesSent): Partial<PartyColumns> => ({
  ...(patch.payment_means !== undefined ? { paymentMeans: patch.payment_means.map(paymentMeansOf) } : {}),
  ...(patch.payee !== undefined ? { payee: patch.payee && payeeOf(patch.payee) } : {}),
  ...(patch.preceding_invoice !== undefined ? { precedingInvoice: patch.preceding_invoice && precedingInvoiceOf(patch.preceding_invoice) } : {}),
});

/** A new draft's columns: what was sent, else none. */
export const partyColumns = (body: Pick<CreateInvoiceBody, 'payment_means' | 'payee' | 'preceding_invoice'>): PartyColumns => ({
  paymentMeans: [],
  payee: null,
  precedingInvoice: null,
  ...partyChanges(body),
});
