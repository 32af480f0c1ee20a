import { listInvoiceMessages, retrieveMessage, sendInvoice } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { MessageService } from './message.service.ts';

export const registerMessageRoutes = (app: ServiceApp, messages: MessageService): void => {
  // The message is queued in the keyed write's transaction, with its recorded answer.
  registerOperation(app, sendInvoice, (request) => messages.send(actorOf(request), request.params.id, request.body));
  registerOperation(app, listInvoiceMessages, (request) => messages.list(actorOf(request), request.params.id, request.query));
  registerOperation(app, retrieveMessage, (request) => messages.retrieve(actorOf(request), request.params.id));
};
