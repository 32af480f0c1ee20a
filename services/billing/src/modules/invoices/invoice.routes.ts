import {
  createInvoice,
  deleteInvoice,
  finalizeInvoice,
  listInvoices,
  listInvoiceTimeline,
  payInvoice,
  retrieveInvoice,
  updateInvoice,
  voidInvoice,
} from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { FinalizeInvoice } from './finalize-invoice.ts';
import type { InvoiceService } from './invoice.service.ts';
import type { SettleInvoice } from './settle-invoice.ts';

export interface InvoiceUseCases {
  invoices: InvoiceService;
  finalize: FinalizeInvoice;
  settle: SettleInvoice;
}

export const registerInvoiceRoutes = (app: ServiceApp, { invoices, finalize, settle }: InvoiceUseCases): void => {
  registerOperation(app, listInvoices, (request) => invoices.list(actorOf(request), request.query));
  registerOperation(app, createInvoice, (request) => invoices.create(actorOf(request), request.body));
  registerOperation(app, retrieveInvoice, (request) => invoices.retrieve(actorOf(request), request.params.id));
  registerOperation(app, updateInvoice, (request) => invoices.update(actorOf(request), request.params.id, request.body));
  registerOperation(app, deleteInvoice, (request) => invoices.remove(actorOf(request), request.params.id));
  registerOperation(app, finalizeInvoice, (request) => finalize(actorOf(request), request.params.id));
  registerOperation(app, payInvoice, (request) => settle.pay(actorOf(request), request.params.id, request.body));
  registerOperation(app, voidInvoice, (request) => settle.void(actorOf(request), request.params.id, request.body));
  registerOperation(app, listInvoiceTimeline, (request) => invoices.timeline(actorOf(request), request.params.id, request.query));
};
