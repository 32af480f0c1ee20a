import { cancelSubscription, createSubscription, listSubscriptions, retrieveSubscription, updateSubscription } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { SubscriptionService } from './subscription.service.ts';

export const registerSubscriptionRoutes = (app: ServiceApp, subscriptions: SubscriptionService): void => {
  registerOperation(app, listSubscriptions, (request) => subscriptions.list(actorOf(request), request.query));
  registerOperation(app, createSubscription, (request) => subscriptions.create(actorOf(request), request.body));
  registerOperation(app, retrieveSubscription, (request) => subscriptions.retrieve(actorOf(request), request.params.id));
  registerOperation(app, updateSubscription, (request) => subscriptions.update(actorOf(request), request.params.id, request.body));
  registerOperation(app, cancelSubscription, (request) => subscriptions.cancel(actorOf(request), request.params.id, request.body));
};
