import { createCursorCodec, createServiceApp, loggerOptions, pingDatabase, systemClock, type Clock, type Orm } from '@invoicing/service-kit';
import type { FastifyServerOptions } from 'fastify';
import { SUBSCRIPTIONS_SCHEMA } from './database.ts';
import { registerSubscriptionRoutes } from './modules/subscriptions/subscription.routes.ts';
import { subscriptionService, testClockIdOf, type TestClockMoment } from './modules/subscriptions/subscription.service.ts';
import type { BillingClient, CatalogReader } from './shared/upstreams.ts';

export interface SubscriptionsDeps {
  /** Opened on the subscriptions schema and migrated; whoever opened it closes it. */
  orm: Orm;
  internalToken: string;
  catalog: CatalogReader;
  billing: BillingClient;
  announce: () => void;
  nudgeScheduler: (testClock?: TestClockMoment) => void;
  /** Invoices a test clock's due periods at its time (the scheduler's runClock): billing's clock stepper asks. */
  runTestClock: (workspaceId: string, testClockId: string, at: Date) => Promise<number>;
  logger?: FastifyServerOptions['logger'];
  clock?: Clock;
  checkReadiness?: () => Promise<void>;
  idempotencyTtlHours?: number;
}

/** The subscriptions service's HTTP app. Registers everything, never listens. */
export const buildApp = ({
  orm,
  internalToken,
  catalog,
  billing,
  announce,
  nudgeScheduler,
  runTestClock,
  logger = loggerOptions('subscriptions', 'silent'),
  clock = systemClock,
  checkReadiness = () => pingDatabase(orm),
  idempotencyTtlHours = 24,
}: SubscriptionsDeps) => {
  const app = createServiceApp({
    name: 'subscriptions',
    logger,
    internalToken,
    orm,
    checkReadiness,
    keyedWrites: { schema: SUBSCRIPTIONS_SCHEMA, ttlHours: idempotencyTtlHours },
  });
  const cursors = createCursorCodec(internalToken);
  registerSubscriptionRoutes(app, subscriptionService({ em: orm.em, clock, catalog, billing, cursors, announce, nudgeScheduler }), async (actor, publicClockId, at) => ({
    data: { count: await runTestClock(actor.workspaceId, testClockIdOf(publicClockId), at) },
  }));
  return app;
};
