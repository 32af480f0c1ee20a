import { archiveCustomer, createCustomer, listCustomers, retrieveCustomer, updateCustomer } from '@invoicing/contracts';
import { registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { CustomerService } from './customer.service.ts';

export const registerCustomerRoutes = (app: ServiceApp, customers: CustomerService): void => {
  registerOperation(app, listCustomers, (request) => customers.list(workspaceOf(request), request.query));
  registerOperation(app, createCustomer, (request) => customers.create(workspaceOf(request), request.body));
  registerOperation(app, retrieveCustomer, (request) => customers.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, updateCustomer, (request) => customers.update(workspaceOf(request), request.params.id, request.body));
  registerOperation(app, archiveCustomer, (request) => customers.archive(workspaceOf(request), request.params.id));
};
