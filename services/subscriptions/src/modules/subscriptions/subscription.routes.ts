import {
  cancelSubscription,
  createSubscription,
  deleteTestClockSubscriptions,
  listSubscriptions,
  retrieveSubscription,
  runTestClockSubscriptions,
  updateSubscription,
} from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf, type Actor } from '../../shared/actor.ts';
import type { SubscriptionService } from './subscription.service.ts';

export const registerSubscriptionRoutes = (
  app: ServiceApp,
  subscriptions: SubscriptionService,
  runTestClock: (actor: Actor, publicClockId: string, at: Date) => Promise<{ data: { count: number } }>,
): void => {
  registerOperation(app, listSubscriptions, (request) => subscriptions.list(actorOf(request), request.query));
  registerOperation(app, createSubscription, (request) => subscriptions.create(actorOf(request), request.body));
  registerOperation(app, retrieveSubscription, (request) => subscriptions.retrieve(actorOf(request), request.params.id));
  registerOperation(app, updateSubscription, (request) => subscriptions.update(actorOf(request), request.params.id, request.body));
  registerOperation(app, cancelSubscription, (request) => subscriptions.cancel(actorOf(request), request.params.id, request.body));
  // Internal (billing's test clock stepper and deletion): the gateway never forwards /internal.
  registerOperation(app, runTestClockSubscriptions, (request) => runTestClock(actorOf(request), request.params.id, new Date(request.body.frozen_time)));
  registerOperation(app, deleteTestClockSubscriptions, (request) => subscriptions.removeOfTestClock(actorOf(request), request.params.id));
};
