import { createPayment, listInvoicePayments } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { PaymentsService } from './payments.service.ts';

export const registerPaymentRoutes = (app: ServiceApp, payments: PaymentsService): void => {
  // A keyed payment commits in the keyed write's transaction, with the record of its answer.
  registerOperation(app, createPayment, (request) => payments.create(actorOf(request), request.params.id, request.body));
  registerOperation(app, listInvoicePayments, (request) => payments.list(actorOf(request), request.params.id));
};
