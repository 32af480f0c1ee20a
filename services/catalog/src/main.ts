import { ConfigError, ensureDatabaseExists, loggerOptions, migrateDatabase, runService } from '@invoicing/service-kit';
import { buildApp } from './app.ts';
import { loadConfig } from './config.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from './database.ts';

const config = (() => {
  try {
    return loadConfig();
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    console.error(`catalog: ${error.message}`);
    process.exit(1);
  }
})();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openCatalogDatabase(config.DATABASE_URL, config.DATABASE_POOL_SIZE);
await migrateDatabase(orm, CATALOG_SCHEMA, config.DATABASE_URL);
const app = buildApp({ orm, internalToken: config.INTERNAL_TOKEN, logger: loggerOptions('catalog', config.LOG_LEVEL) });
await runService({ app, host: config.HOST, port: config.PORT });
