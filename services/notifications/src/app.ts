import { createCursorCodec, createServiceApp, loggerOptions, type Orm } from '@invoicing/service-kit';
import type { FastifyServerOptions } from 'fastify';
import { registerEndpointRoutes } from './modules/endpoints/endpoint.routes.ts';
import { endpointService } from './modules/endpoints/endpoint.service.ts';
import { registerEventRoutes } from './modules/events/event.routes.ts';
import { eventService } from './modules/events/event.service.ts';
import type { AddressPolicy } from './shared/address-policy.ts';
import type { Clock } from './shared/clock.ts';
import type { SecretBox } from './shared/secret-box.ts';

export interface NotificationsAppDeps {
  /** Opened on the notifications schema and migrated; whoever opened it closes it. */
  orm: Orm;
  internalToken: string;
  policy: AddressPolicy;
  secrets: SecretBox;
  clock: Clock;
  /** Called after a commit that queued deliveries (replay, redeliver). */
  announce: () => void;
  checkReadiness: () => Promise<void>;
  logger?: FastifyServerOptions['logger'];
}

/** The notifications HTTP app: webhook endpoints and the event log. Registers everything, never listens. */
export const buildApp = ({ orm, internalToken, policy, secrets, clock, announce, checkReadiness, logger = loggerOptions('notifications', 'silent') }: NotificationsAppDeps) => {
  const app = createServiceApp({ name: 'notifications', logger, internalToken, orm, checkReadiness });
  // Signed with a key derived from the internal token, which every replica shares.
  const cursors = createCursorCodec(internalToken);
  registerEndpointRoutes(app, endpointService({ em: orm.em, policy, secrets, clock, cursors, announce }));
  registerEventRoutes(app, eventService({ em: orm.em, cursors, announce }));
  return app;
};

export type NotificationsApp = ReturnType<typeof buildApp>;
