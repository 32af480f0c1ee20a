import { BILLING_SUBJECTS, type PayInvoiceBody } from '@invoicing/contracts';
import type { SelfRecordedWrite } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { changeOpenInvoice } from './change-open-invoice.ts';
import type { InvoiceDeps } from './invoice-deps.ts';

/** Pay: an open (or overdue) invoice is paid in full, on `paid_on` (not in the future) or now. */
export const payInvoice = (deps: InvoiceDeps) => {
  const changeOpen = changeOpenInvoice(deps);
  return (actor: Actor, publicId: string, { paid_on: paidOn, payment_reference: paymentReference }: PayInvoiceBody, keyed: SelfRecordedWrite | undefined) =>
    changeOpen(
      actor,
      publicId,
      {
        change: { to: 'paid', paidOn, paymentReference },
        subject: BILLING_SUBJECTS.invoicePaid,
        fact: (today) => ({ type: 'paid', paid_on: paidOn ?? today, payment_reference: paymentReference ?? null }),
      },
      keyed,
    );
};

export type PayInvoice = ReturnType<typeof payInvoice>;
