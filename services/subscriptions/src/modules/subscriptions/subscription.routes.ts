import {
  cancelSubscription,
  createSubscription,
  deleteTestClockSubscriptions,
  listSubscriptions,
  parsePublicId,
  retrieveSubscription,
  runTestClockSubscriptions,
  updateSubscription,
} from '@invoicing/contracts';
import { notFound, registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { SubscriptionService } from './subscription.service.ts';

const testClockIdOf = (publicId: string): string => {
  const id = parsePublicId('testClock', publicId);
  if (id === undefined) throw notFound('test_clock', publicId);
  return id;
};

export const registerSubscriptionRoutes = (
  app: ServiceApp,
  subscriptions: SubscriptionService,
  runTestClock: (workspaceId: string, testClockId: string, at: Date) => Promise<number>,
): void => {
  registerOperation(app, listSubscriptions, (request) => subscriptions.list(actorOf(request), request.query));
  registerOperation(app, createSubscription, (request) => subscriptions.create(actorOf(request), request.body));
  registerOperation(app, retrieveSubscription, (request) => subscriptions.retrieve(actorOf(request), request.params.id));
  registerOperation(app, updateSubscription, (request) => subscriptions.update(actorOf(request), request.params.id, request.body));
  registerOperation(app, cancelSubscription, (request) => subscriptions.cancel(actorOf(request), request.params.id, request.body));
  // Internal (billing's test clock stepper and deletion): the gateway never forwards /internal.
  registerOperation(app, runTestClockSubscriptions, async (request) => ({
    data: { count: await runTestClock(actorOf(request).workspaceId, testClockIdOf(request.params.id), new Date(request.body.frozen_time)) },
  }));
  registerOperation(app, deleteTestClockSubscriptions, (request) => subscriptions.removeOfTestClock(actorOf(request), testClockIdOf(request.params.id)));
};
