import { applyMigrations, loggerOptions, prepareDatabase, type ServiceDefinition } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig, loadMigrateConfig, type CatalogConfig } from './config.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from './database.ts';

/** The catalog as its hosts run it: alone (`main.ts`) or beside the other services (`npm start`). */
export const catalogService: ServiceDefinition<CatalogConfig> = {
  name: 'catalog',
  usesEvents: false,
  loadConfig,
  create: async (config) => {
    const orm = await openCatalogDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
    const app = buildApp({ orm, internalToken: config.INTERNAL_TOKEN, logger: loggerOptions('catalog', config.LOG_LEVEL), idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS });
    return { app, prepareDatabase: () => prepareDatabase(orm, CATALOG_SCHEMA, config.DATABASE_URL), startWorkers: async () => {} };
  },
  migrate: (env) => applyMigrations(loadMigrateConfig(env).DATABASE_URL, CATALOG_SCHEMA, openCatalogDatabase),
};
