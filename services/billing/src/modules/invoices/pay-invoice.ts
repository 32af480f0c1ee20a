import type { PayInvoiceBody } from '@invoicing/contracts';
import type { Actor } from '../../shared/actor.ts';
import { paymentsService } from '../payments/payments.service.ts';
import type { InvoiceDeps } from './invoice-deps.ts';

/**
 * Pay: one payment of everything still to be paid (`amount_remaining`), on `paid_on` (not in the
 * future) or now, which makes the invoice paid (decisions.md, "Payments and bank statements").
 */
export const payInvoice = (deps: InvoiceDeps) => {
  const payments = paymentsService(deps);
  return (actor: Actor, publicId: string, body: PayInvoiceBody) => payments.payRemaining(actor, publicId, body);
};

export type PayInvoice = ReturnType<typeof payInvoice>;
