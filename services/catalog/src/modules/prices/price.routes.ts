import { archivePrice, createPrice, listPrices, retrievePrice, updatePrice } from '@invoicing/contracts';
import { registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { PriceService } from './price.service.ts';

export const registerPriceRoutes = (app: ServiceApp, prices: PriceService): void => {
  registerOperation(app, listPrices, (request) => prices.list(workspaceOf(request), request.query));
  registerOperation(app, createPrice, (request) => prices.create(workspaceOf(request), request.body));
  registerOperation(app, retrievePrice, (request) => prices.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, updatePrice, (request) => prices.update(workspaceOf(request), request.params.id, request.body));
  registerOperation(app, archivePrice, (request) => prices.archive(workspaceOf(request), request.params.id));
};
