import { createCursorCodec, createServiceApp, loggerOptions, pingDatabase, systemClock, type Clock, type Orm } from '@invoicing/service-kit';
import { CATALOG_SCHEMA } from './database.ts';
import type { FastifyServerOptions } from 'fastify';
import { registerCustomerRoutes } from './modules/customers/customer.routes.ts';
import { customerService } from './modules/customers/customer.service.ts';
import { registerPriceRoutes } from './modules/prices/price.routes.ts';
import { priceService } from './modules/prices/price.service.ts';
import { registerProductRoutes } from './modules/products/product.routes.ts';
import { productService } from './modules/products/product.service.ts';
import type { TestClockReader } from './shared/test-clocks.ts';

export interface CatalogDeps {
  /** Opened on the catalog schema and migrated; whoever opened it closes it. */
  orm: Orm;
  internalToken: string;
  /** Billing's test clocks: a customer created on one must name a clock of its space. */
  testClocks: TestClockReader;
  logger?: FastifyServerOptions['logger'];
  clock?: Clock;
  /** Throws when the database does not answer; default: a query on `orm`. */
  checkReadiness?: () => Promise<void>;
  /** How long the outcome of a keyed write is kept (IDEMPOTENCY_TTL_HOURS). */
  idempotencyTtlHours?: number;
}

/** The catalog's HTTP app: customers, products and prices. Registers everything, never listens. */
export const buildApp = ({ orm, internalToken, testClocks, logger = loggerOptions('catalog', 'silent'), clock = systemClock, checkReadiness = () => pingDatabase(orm), idempotencyTtlHours = 24 }: CatalogDeps) => {
  const app = createServiceApp({
    name: 'catalog',
    logger,
    internalToken,
    orm,
    checkReadiness,
    keyedWrites: { schema: CATALOG_SCHEMA, ttlHours: idempotencyTtlHours },
  });
  // Signed with a key derived from the internal token, which every replica shares.
  const cursors = createCursorCodec(internalToken);
  registerCustomerRoutes(app, customerService(orm.em, clock, cursors, testClocks));
  registerProductRoutes(app, productService(orm.em, clock, cursors));
  registerPriceRoutes(app, priceService(orm.em, clock, cursors));
  return app;
};
