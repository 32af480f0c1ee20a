import { retrieveAccount, updateAccount } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { AccountService } from './account.service.ts';

export const registerAccountRoutes = (app: ServiceApp, account: AccountService): void => {
  registerOperation(app, retrieveAccount, (request) => account.retrieve(actorOf(request)));
  registerOperation(app, updateAccount, (request) => account.update(actorOf(request), request.body));
};
