import { defineService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from './database.ts';

/** The catalog as its hosts run it: alone (`main.ts`), beside the other services (`npm start`) or in its tests. */
export const catalogService = defineService({
  name: 'catalog',
  loadConfig,
  database: { schema: CATALOG_SCHEMA, open: openCatalogDatabase },
  build: ({ config, orm, logger, clock, checkReadiness }) => ({
    app: buildApp({ orm, internalToken: config.INTERNAL_TOKEN, logger, clock, checkReadiness, idempotencyTtlHours: config.IDEMPOTENCY_TTL_HOURS }),
  }),
});
