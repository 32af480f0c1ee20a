import {
  createInvoice,
  createSubscriptionInvoice,
  deleteInvoice,
  finalizeInvoice,
  listInvoices,
  listInvoiceTimeline,
  payInvoice,
  PublicTokenPathParams,
  InvoiceByPublicToken,
  retrieveInvoice,
  rotatePublicLink,
  updateInvoice,
  voidInvoice,
} from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { FinalizeInvoice } from './finalize-invoice.ts';
import type { InvoiceService } from './invoice.service.ts';
import type { PayInvoice } from './pay-invoice.ts';
import type { PublicLinks } from './public-link.ts';
import type { VoidInvoice } from './void-invoice.ts';

export interface InvoiceUseCases {
  invoices: InvoiceService;
  finalize: FinalizeInvoice;
  pay: PayInvoice;
  void: VoidInvoice;
  publicLinks: PublicLinks;
}

/** Billing's internal route behind the public pages (documents calls it); the gateway never forwards to it. */
export const INVOICE_BY_PUBLIC_TOKEN_ROUTE = '/internal/v1/invoices/by-token/:token';

export const registerInvoiceRoutes = (app: ServiceApp, useCases: InvoiceUseCases): void => {
  const { invoices, finalize, pay, publicLinks } = useCases;
  registerOperation(app, listInvoices, (request) => invoices.list(actorOf(request), request.query));
  // These record a keyed request's response where they write: create and void in the one
  // statement of their change, finalize in its batch's transaction.
  registerOperation(app, createInvoice, (request, _reply, keyed) => invoices.create(actorOf(request), request.body, keyed), { recordsOwnOutcome: true });
  // Not in the route table: only the subscriptions service calls it, with a key per subscription and period;
  // one invoice per subscription and period whatever the key (a period that has one is answered with it).
  registerOperation(
    app,
    createSubscriptionInvoice,
    (request, _reply, keyed) => invoices.create(actorOf(request), request.body, keyed, { id: request.body.subscription, periodStart: request.body.period_start }),
    { recordsOwnOutcome: true },
  );
  registerOperation(app, retrieveInvoice, (request) => invoices.retrieve(actorOf(request), request.params.id));
  registerOperation(app, updateInvoice, (request) => invoices.update(actorOf(request), request.params.id, request.body));
  registerOperation(app, deleteInvoice, (request) => invoices.remove(actorOf(request), request.params.id));
  registerOperation(app, finalizeInvoice, (request, _reply, keyed) => finalize(actorOf(request), request.params.id, keyed), { recordsOwnOutcome: true });
  // Pay locks the invoice and records a payment in the keyed write's transaction, with the record of its answer.
  registerOperation(app, payInvoice, (request) => pay(actorOf(request), request.params.id, request.body));
  registerOperation(app, voidInvoice, (request, _reply, keyed) => useCases.void(actorOf(request), request.params.id, request.body, keyed), { recordsOwnOutcome: true });
  registerOperation(app, listInvoiceTimeline, (request) => invoices.timeline(actorOf(request), request.params.id, request.query));
  registerOperation(app, rotatePublicLink, (request) => publicLinks.rotate(actorOf(request), request.params.id));
  app.get(INVOICE_BY_PUBLIC_TOKEN_ROUTE, { schema: { params: PublicTokenPathParams, response: { 200: InvoiceByPublicToken } } }, (request) =>
    publicLinks.byToken(request.params.token),
  );
};
