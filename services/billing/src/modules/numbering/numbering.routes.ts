import { retrieveNumbering, verifyNumbering } from '@invoicing/contracts';
import { registerOperation, type ServiceApp } from '@invoicing/service-kit';
import { actorOf } from '../../shared/actor.ts';
import type { NumberingService } from './numbering.service.ts';

export const registerNumberingRoutes = (app: ServiceApp, numbering: NumberingService): void => {
  registerOperation(app, retrieveNumbering, (request) => numbering.retrieve(actorOf(request)));
  registerOperation(app, verifyNumbering, (request) => numbering.verify(actorOf(request)));
};
