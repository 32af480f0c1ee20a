import { archiveProduct, createProduct, listProducts, retrieveProduct, updateProduct } from '@invoicing/contracts';
import { registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { ProductService } from './product.service.ts';

export const registerProductRoutes = (app: ServiceApp, products: ProductService): void => {
  registerOperation(app, listProducts, (request) => products.list(workspaceOf(request), request.query));
  registerOperation(app, createProduct, (request) => products.create(workspaceOf(request), request.body));
  registerOperation(app, retrieveProduct, (request) => products.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, updateProduct, (request) => products.update(workspaceOf(request), request.params.id, request.body));
  registerOperation(app, archiveProduct, (request) => products.archive(workspaceOf(request), request.params.id));
};
