import { archiveCustomer, createCustomer, deleteTestClockCustomers, listCustomers, retrieveCustomer, updateCustomer } from '@invoicing/contracts';
import { callerOf, registerOperation, workspaceOf, type ServiceApp } from '@invoicing/service-kit';
import type { CustomerService } from './customer.service.ts';

export const registerCustomerRoutes = (app: ServiceApp, customers: CustomerService): void => {
  registerOperation(app, listCustomers, (request) => customers.list(workspaceOf(request), request.query));
  registerOperation(app, createCustomer, (request) => customers.create(workspaceOf(request), request.body, callerOf(request)));
  registerOperation(app, retrieveCustomer, (request) => customers.retrieve(workspaceOf(request), request.params.id));
  registerOperation(app, updateCustomer, (request) => customers.update(workspaceOf(request), request.params.id, request.body));
  // Internal (billing's, when a test clock is deleted): the gateway never forwards /internal.
  registerOperation(app, deleteTestClockCustomers, (request) => customers.removeOfTestClock(workspaceOf(request), request.params.id));
  registerOperation(app, archiveCustomer, (request) => customers.archive(workspaceOf(request), request.params.id));
};
