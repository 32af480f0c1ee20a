import {
  createWebhookEndpoint,
  deleteWebhookEndpoint,
  listWebhookEndpoints,
  replayWebhookEvents,
  retrieveWebhookEndpoint,
  rotateWebhookEndpointSecret,
  updateWebhookEndpoint,
} from '@invoicing/contracts';
import { registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { EndpointService } from './endpoint.service.ts';

export const registerEndpointRoutes = (app: ServiceApp, endpoints: EndpointService): void => {
  registerOperation(app, listWebhookEndpoints, (request) => endpoints.list(workspaceOf(request), request.query));
  registerOperation(app, createWebhookEndpoint, (request) => endpoints.create(workspaceOf(request), request.body));
  registerOperation(app, retrieveWebhookEndpoint, (request) => endpoints.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, updateWebhookEndpoint, (request) => endpoints.update(workspaceOf(request), request.params.id, request.body));
  registerOperation(app, deleteWebhookEndpoint, (request) => endpoints.remove(workspaceOf(request), request.params.id));
  registerOperation(app, rotateWebhookEndpointSecret, (request) => endpoints.rotateSecret(workspaceOf(request), request.params.id));
  registerOperation(app, replayWebhookEvents, (request) => endpoints.replay(workspaceOf(request), request.params.id, request.body));
};
