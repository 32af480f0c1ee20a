import { afterCommit, createCursorCodec, createServiceApp, loggerOptions, type Orm } from '@invoicing/service-kit';
import type { Clock } from '@invoicing/service-kit/clock';
import { NOTIFICATIONS_SCHEMA } from './database.ts';
import type { FastifyServerOptions } from 'fastify';
import { registerEndpointRoutes } from './modules/endpoints/endpoint.routes.ts';
import { endpointService } from './modules/endpoints/endpoint.service.ts';
import { registerEventRoutes } from './modules/events/event.routes.ts';
import { eventService } from './modules/events/event.service.ts';
import type { AddressPolicy } from './shared/address-policy.ts';
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
  /** How long the outcome of a keyed write is kept (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlHours?: number;
}

/** The notifications HTTP app: webhook endpoints and the event log. Registers everything, never listens. */
export const buildApp = ({
  orm,
  internalToken,
  policy,
  secrets,
  clock,
  announce: announceNow,
  checkReadiness,
  logger = loggerOptions('notifications', 'silent'),
  idempotencyTtlHours = 24,
}: NotificationsAppDeps) => {
  const app = createServiceApp({ name: 'notifications', logger, internalToken, orm, checkReadiness, keyedWrites: { schema: NOTIFICATIONS_SCHEMA, ttlHours: idempotencyTtlHours } });
  // A keyed write commits after its use case returns: the worker is told once it has.
  const announce = () => afterCommit(announceNow);
  // Signed with a key derived from the internal token, which every replica shares.
  const cursors = createCursorCodec(internalToken);
  registerEndpointRoutes(app, endpointService({ em: orm.em, policy, secrets, clock, cursors, announce }));
  registerEventRoutes(app, eventService({ em: orm.em, cursors, announce }));
  return app;
};

export type NotificationsApp = ReturnType<typeof buildApp>;
