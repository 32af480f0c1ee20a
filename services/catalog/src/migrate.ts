// `npm run migrate -w @invoicing/catalog`: applies the catalog's pending migrations, then exits.
import { ensureDatabaseExists, migrateDatabase } from '@invoicing/service-kit';
import { loadMigrateConfig } from './config.ts';
import { CATALOG_SCHEMA, openCatalogDatabase } from './database.ts';

const config = loadMigrateConfig();
await ensureDatabaseExists(config.DATABASE_URL);
const orm = await openCatalogDatabase(config.DATABASE_URL, 1);
try {
  await migrateDatabase(orm, CATALOG_SCHEMA, config.DATABASE_URL);
  console.log(`catalog: migrations applied to schema "${CATALOG_SCHEMA}"`);
} finally {
  await orm.close();
}
