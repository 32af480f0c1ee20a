import { BILLING_SUBJECTS, type VoidInvoiceBody } from '@invoicing/contracts';
import type { SelfRecordedWrite } from '@invoicing/service-kit';
import type { Actor } from '../../shared/actor.ts';
import { changeOpenInvoice } from './change-open-invoice.ts';
import type { InvoiceDeps } from './invoice-deps.ts';

/** Void: an open (or overdue) invoice is cancelled; its number stays taken. */
export const voidInvoice = (deps: InvoiceDeps) => {
  const changeOpen = changeOpenInvoice(deps);
  return (actor: Actor, publicId: string, { reason }: VoidInvoiceBody, keyed: SelfRecordedWrite | undefined) =>
    changeOpen(actor, publicId, { change: { to: 'void', reason }, subject: BILLING_SUBJECTS.invoiceVoided, fact: () => ({ type: 'voided', reason: reason ?? null }) }, keyed);
};

export type VoidInvoice = ReturnType<typeof voidInvoice>;
