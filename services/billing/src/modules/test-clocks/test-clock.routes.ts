import { advanceTestClock, createTestClock, deleteTestClock, listTestClocks, retrieveTestClock } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { TestClocksService } from './test-clocks.service.ts';

export const registerTestClockRoutes = (app: ServiceApp, clocks: TestClocksService): void => {
  registerOperation(app, listTestClocks, (request) => clocks.list(actorOf(request), request.query));
  registerOperation(app, createTestClock, (request) => clocks.create(actorOf(request), request.body));
  registerOperation(app, retrieveTestClock, (request) => clocks.retrieve(actorOf(request), request.params.id));
  registerOperation(app, advanceTestClock, (request) => clocks.advance(actorOf(request), request.params.id, request.body));
  registerOperation(app, deleteTestClock, (request) => clocks.remove(actorOf(request), request.params.id));
};
