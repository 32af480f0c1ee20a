import { listEventDeliveries, listEvents, redeliverEvent, retrieveEvent } from '@invoicing/contracts';
import { registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { EventService } from './event.service.ts';

export const registerEventRoutes = (app: ServiceApp, events: EventService): void => {
  registerOperation(app, listEvents, (request) => events.list(workspaceOf(request), request.query));
  registerOperation(app, retrieveEvent, (request) => events.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, listEventDeliveries, (request) => events.deliveries(workspaceOf(request), request.params.id, request.query));
  registerOperation(app, redeliverEvent, (request) => events.redeliver(workspaceOf(request), request.params.id, request.body));
};
